import { keys, type WindowStore } from '../store/index.ts';
import { type LimitStore, velocityMemberOf } from './limit-deps.ts';

/** The request whose places are given back: enough to name each of its windows (an `ApprovalRequest` is one). */
export interface LimitHolder {
  tenant: string;
  sub: string;
  client_id: string;
  auth_req_id: string;
}

/**
 * Takes a request out of its user's pending requests (their inbox) and out of its client's share
 * of them: it was decided or it expired, so it no longer counts. Safe to repeat (a member that is
 * gone is gone); an expired one would also leave both on its own, by its deadline.
 *
 * @throws the store's error.
 */
export async function releasePending(store: LimitStore, request: LimitHolder): Promise<void> {
  await Promise.all([store.sortedRemove(keys.pendingRequests(request.tenant, request.sub), request.auth_req_id), store.sortedRemove(keys.clientPendingRequests(request.tenant, request.sub, request.client_id), velocityMemberOf(request.auth_req_id))]);
}

/**
 * Gives back everything a request held in its USER's limits, once it has ended without being
 * redeemed: denied (by a party, by a wrong code, or "this wasn't me") or expired (pending, or
 * approved and never redeemed). Its pending places ({@link releasePending}), and its count and
 * amounts in the user's velocity window (`Store.windowRemove` takes this request's own entry: each
 * request adds one, under {@link velocityMemberOf}). Without it, one client asking for a large
 * amount would lock the user out of every other client for the whole window, even after the user
 * said no. A redeemed request keeps counting: money moved.
 *
 * The per-client velocity window keeps the request: it is that client's budget, and a client whose
 * requests are denied must not get its budget back by being denied.
 *
 * Call it only from the caller whose compare-and-swap moved the request to `denied` or `expired`,
 * so that of several racing (two sweepers, a poll, the device) exactly one gives back. An entry
 * that already left the window (older than `window_seconds`) is simply not found.
 *
 * @throws the store's error; what was given back before it stays given back.
 * @see docs/guarantees.md "One client cannot lock a person out"; docs/design.md "States"
 */
export async function releaseUnused(store: LimitStore, request: LimitHolder): Promise<void> {
  await Promise.all([releasePending(store, request), store.windowRemove(keys.window(request.tenant, 'velocity-user', request.sub), velocityMemberOf(request.auth_req_id))]);
}

/** The `auth_req_id`s pending for a user at `nowMs` (their inbox), soonest deadline first. */
export function pendingRequestIds(store: WindowStore, tenant: string, sub: string, nowMs: number): Promise<string[]> {
  return store.sortedWindowMembers(keys.pendingRequests(tenant, sub), nowMs, 0);
}
