import type { Deps } from '../deps.ts';
import { keys } from '../store/index.ts';
import { outboxOf } from './lifecycle.ts';
import { settleExpiry } from './load-request.ts';
import { nextEscalation, trackApprovalDeadline, trackEscalation, type RequestRef } from './request-deadlines.ts';
import { requestOf } from './request-fields.ts';

/** What the passes of a sweep need of the server's dependencies. */
export type SweepDeps = Pick<Deps, 'store' | 'clock' | 'audit' | 'config' | 'lifecycle' | 'outbox' | 'log'>;

/**
 * One due entry of the deadline index: the request's stale outbox entries delivered, then the
 * request settled with `settleExpiry` (docs/audit.md "Expire loudly").
 * @returns `'keep'` when the request was approved meanwhile and its entry now waits for the
 * approval's deadline; else undefined (the entry is dropped).
 */
export async function expireDue(current: SweepDeps, ref: RequestRef): Promise<'keep' | undefined> {
  let fields = await current.store.hashGet(keys.request(ref.tenant, ref.auth_req_id));
  // The second backstop: a request stays in this index until its last outbox entry is
  // delivered, so what even the reconciler missed is delivered here, at the latest. Entries
  // younger than the reconciler's delay may still be on their way: left to their instance.
  if (fields && outboxOf(fields).length > 0 && (await current.outbox.drain(ref, fields, { staleOnly: true })) > 0) fields = await current.store.hashGet(keys.request(ref.tenant, ref.auth_req_id));
  const request = requestOf(fields);
  // A request that is gone (its TTL ran out) or already decided has nothing left to announce.
  const settled = request ? await settleExpiry(current, request) : null;
  // Approved just before its decision deadline, while this sweep read the index: its entry
  // waits for the approval's deadline instead (as the approval itself moved it), not dropped.
  if (settled?.state === 'approved') {
    await trackApprovalDeadline(current.store, settled, current.config);
    return 'keep';
  }
  return undefined;
}

/**
 * Escalation windows that passed (docs/escalation.md): each request handed to its chain's next
 * role, one compare-and-swap pinned to the step read, so two sweeps hand it on once. Its entry
 * was moved to the next step's time by the transition's consequences: kept, not dropped.
 * @returns `'keep'` while a next step is still to come before its deadline; else undefined (dropped).
 */
export async function escalateDue(current: SweepDeps, ref: RequestRef): Promise<'keep' | undefined> {
  const request = requestOf(await current.store.hashGet(keys.request(ref.tenant, ref.auth_req_id)));
  if (!request || request.state !== 'pending') return undefined;
  const now = current.clock.now();
  const result = await current.lifecycle.escalate(request, now);
  // As it stands after the attempt (another sweep may have handed it on meanwhile): kept at its
  // next step's time while one is still to come before its deadline, else dropped. A next step
  // already due (the sweeps fell behind its window) is kept too, so the next sweep hands it on.
  const after = result.ok ? result.request : (requestOf(result.fields) ?? request);
  const next = after.state === 'pending' ? nextEscalation(after) : null;
  if (!next || now >= after.expires_at) return undefined;
  if (!result.ok) await trackEscalation(current.store, after, current.config.requestExpiryMax + current.config.graceSeconds);
  return 'keep';
}
