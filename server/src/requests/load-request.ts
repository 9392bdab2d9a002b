import type { Deps } from '../deps.ts';
import { recordHistory } from '../devices/index.ts';
import { releaseUnused } from '../policy/index.ts';
import { keys, type Store } from '../store/index.ts';
import { announceExpiry } from './announce-expiry.ts';
import { untrackDeadline } from './request-deadlines.ts';
import { effectiveState, fromFields, requestOf, type ApprovalRequest } from './request-record.ts';

/**
 * Whether `value` has the shape of an `auth_req_id` (base64url, 16 to 128 characters). Anything
 * else is never looked up nor used in a key: no braces to move a key into another hash tag, no
 * kilobytes of junk under which to open an audit trail.
 */
export function isRequestId(value: string): boolean {
  return /^[A-Za-z0-9_-]{16,128}$/.test(value);
}

/** A request by tenant and id, or null. Tenancy is in the key: another tenant's id is not found. */
export async function loadRequest(store: Store, tenant: string, authReqId: string): Promise<ApprovalRequest | null> {
  if (!isRequestId(authReqId)) return null;
  const fields = await store.hashGet(keys.request(tenant, authReqId));
  return requestOf(fields);
}

/** What {@link settleExpiry} needs of the server's dependencies. */
export type SettleExpiryDeps = Pick<Deps, 'store' | 'clock' | 'audit' | 'events' | 'config' | 'notifier' | 'push' | 'background' | 'jobs'>;

/**
 * Writes down an expiry the clock has already decided: `pending → expired` or
 * `approved → expired`, as a compare-and-swap guarded by the deadline, so it happens once and
 * never races a decision or a redemption that beat the deadline. Whichever caller wins the swap
 * (a poll, the device, the expiry sweeper) audits it, announces it to the user's open PWA, pushes
 * a `request_expired` notice to the user's devices (in the background, see `announceExpiry`) and,
 * for a request that expired undecided, has the ping or push client told (CIBA Core §10.2,
 * §12 `expired_token`). An approval that runs out is not announced to the client again: it was
 * told at the approval. The winner also gives back the request's places in the user's limits
 * (`releaseUnused`: pending, and the count and amount in the user's velocity window), so an
 * expired request stops counting against the user exactly once, however many callers raced.
 *
 * @returns the request as it now stands.
 */
export async function settleExpiry(deps: SettleExpiryDeps, request: ApprovalRequest): Promise<ApprovalRequest> {
  const now = deps.clock.now();
  if (effectiveState(request, now) !== 'expired' || request.state === 'expired') return request;
  const deadlineField = request.state === 'pending' ? 'expires_at' : 'approval_expires_at';
  const result = await deps.store.compareAndSet(
    keys.request(request.tenant, request.auth_req_id),
    [
      { field: 'state', op: 'eq', value: request.state },
      { field: deadlineField, op: 'lt', value: now + 1 },
    ],
    { state: 'expired', expired_at: String(now) },
    { ttlSeconds: deps.config.graceSeconds },
  );
  if (!result.fields) return { ...request, state: 'expired' };
  const settled = fromFields(result.fields);
  if (result.ok) {
    // The index removals, the give-back and the audit do not depend on each other: one round trip.
    await Promise.all([
      untrackDeadline(deps.store, request),
      releaseUnused(deps.store, request),
      deps.audit.record({
        type: 'expired',
        tenant: request.tenant,
        auth_req_id: request.auth_req_id,
        client_id: request.client_id,
        sub: request.sub,
        channel: 'system',
        detail: { from: request.state },
      }),
    ]);
    deps.events.publish(request.tenant, request.sub, { auth_req_id: request.auth_req_id, state: 'expired' });
    deps.background.run('history', () => recordHistory(deps, settled));
    if (request.state === 'pending') deps.notifier.requestSettled(settled);
    const from = request.state;
    if (from === 'pending' || from === 'approved') deps.background.run('expiry-push', () => announceExpiry(deps, settled, from));
  }
  return settled;
}
