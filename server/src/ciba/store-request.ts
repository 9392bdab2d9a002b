import { CountersignError } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import type { Reservation } from '../policy/index.ts';
import { creationFields, effectiveState, loadRequest, toFields, trackDeadline, trackEscalation, untrackDeadline, untrackEscalation, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';

/**
 * The live request holding a `transaction_id` (whose key held `existingId`), when it is the same
 * action for the same user; null when no live request holds it (none, or denied, or expired: the
 * agent may ask again).
 * @throws CountersignError `transaction_conflict` when a live request holds it for other details.
 */
export async function sameTransaction(deps: Deps, existingId: string | null, tenant: string, candidate: { details_hash: string; sub: string }): Promise<ApprovalRequest | null> {
  const existing = existingId ? await loadRequest(deps.store, tenant, existingId) : null;
  if (!existing || ['denied', 'expired'].includes(effectiveState(existing, deps.clock.now()))) return null;
  if (existing.details_hash === candidate.details_hash && existing.sub === candidate.sub) return existing;
  throw new CountersignError('transaction_conflict', 'This transaction_id is already used for a different action.');
}

/** What {@link storeRequest} needs beside the request. */
export interface StoreRequestInput {
  txKey: string | null;
  /** The request's lifetime, seconds. */
  expiresIn: number;
  /** The reviewer roles its parties need. */
  roles: string[];
  /** The ping or push client's `client_notification_token`, or null. */
  notificationToken: string | null | undefined;
  reservation: Reservation;
}

/**
 * Writes a new request and what finds it, all at once: its record (hashCreate), the
 * `transaction_id` (SET NX), the reviewer queues, the deadline index (the person's inbox is their
 * pending requests, which the reservation wrote). When the `transaction_id` was taken since it was
 * checked (a concurrent retry of the same action), the raced request is answered and everything
 * written for this one is taken back; when any write fails, likewise, and the error is thrown.
 * Either way its places in the windows are given back.
 */
export async function storeRequest(deps: Deps, request: ApprovalRequest, input: StoreRequestInput): Promise<{ created: true; mark: string } | { created: false; raced: ApprovalRequest }> {
  const { store, config } = deps;
  const { tenant, auth_req_id } = request;
  const requestKey = keys.request(tenant, auth_req_id);
  const indexTtl = config.requestExpiryMax + config.graceSeconds;
  // The person's own inbox is their pending requests, written by the reservation; these are the reviewers' queues.
  const indexKeys = input.roles.map((role) => keys.roleRequests(tenant, role));
  // The outbox mark of the creation: written beside the record, so a crash before its consequences
  // (the audit, the push) leaves the reconciler something to find. A mark of a request never
  // written finds nothing, and goes.
  const mark = deps.outbox.intend(request);
  /** Takes back everything written for this request, all at once; throws the first failure once all have run. */
  const takeBack = async () => {
    const results = await Promise.allSettled([store.delete(requestKey), mark.then((member) => store.sortedRemove(keys.outboxDue(), member)), ...indexKeys.map((key) => store.setRemove(key, auth_req_id)), untrackDeadline(store, request), untrackEscalation(store, request), input.reservation.release()]);
    const failed = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (failed) throw failed.reason;
  };
  // The client_notification_token is kept beside the request for the ping or push, never in it (CIBA Core §7.1).
  // With its creation's outbox entry (`ob:0`), delivered by `Outbox.created` or the reconciler.
  const fields = { ...toFields(request, { client_notification_token: input.notificationToken }), ...creationFields(request.created_at) };
  const [marked, written, txTaken, ...rest] = await Promise.allSettled([
    mark,
    store.hashCreate(requestKey, fields, input.expiresIn + config.graceSeconds),
    input.txKey ? store.set(input.txKey, auth_req_id, { onlyIfAbsent: true, ttlSeconds: config.retentionSeconds }) : Promise.resolve(true),
    ...indexKeys.map((key) => store.setAdd(key, auth_req_id, indexTtl)),
    trackDeadline(store, request, indexTtl),
    // A chain's first step, when the tier has one (nothing is written otherwise).
    ...(request.escalation?.length ? [trackEscalation(store, request, indexTtl)] : []),
  ]);
  const failure = [marked, written, txTaken, ...rest].find((result): result is PromiseRejectedResult => result.status === 'rejected');
  try {
    if (failure) throw failure.reason;
    if (input.txKey && !(txTaken as PromiseFulfilledResult<boolean>).value) {
      // Another request took the transaction_id since the check (a concurrent retry), or its holder is over.
      const raced = await sameTransaction(deps, await store.get(input.txKey), tenant, request);
      if (raced) {
        await takeBack();
        return { created: false, raced };
      }
      await store.set(input.txKey, auth_req_id, { ttlSeconds: config.retentionSeconds });
    }
  } catch (error) {
    // The write's own failure is the one to report; a failed take-back is left to the TTLs.
    await takeBack().catch(() => undefined);
    throw error;
  }
  return { created: true, mark: await mark };
}
