import type { Deps } from '../deps.ts';
import { releasePending, releaseUnused, roleOf } from '../policy/index.ts';
import { trackApprovalDeadline, untrackDeadline, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { usersWithRole } from '../users/index.ts';

/** The roles a request's parties need. */
export function rolesOf(request: ApprovalRequest): string[] {
  return (request.parties ?? ['customer']).map(roleOf).filter((role): role is string => role !== null);
}

/** Everyone whose open PWA shows the request: the person it is for, and each holder of a role it needs. */
export async function audienceOf(deps: Pick<Deps, 'store'>, request: ApprovalRequest): Promise<string[]> {
  const reviewers = await Promise.all(rolesOf(request).map((role) => usersWithRole(deps.store, request.tenant, role)));
  return [...new Set([request.sub, ...reviewers.flat()])];
}

/** Tells every open PWA that shows the request where it stands now. */
export async function announce(deps: Pick<Deps, 'store' | 'events'>, request: ApprovalRequest): Promise<void> {
  for (const sub of await audienceOf(deps, request)) deps.events.publish(request.tenant, sub, { auth_req_id: request.auth_req_id, state: request.state });
}

/**
 * What follows a decision that moved a request out of `pending` (approved by every party, or
 * denied): it leaves the person's pending requests (their inbox, and its client's share of them) and
 * the reviewers' queues; open PWAs are told; a ping or push client is notified (CIBA Core §10.2,
 * §10.3; a poll client finds out at /token). A denied request also gives back its count and amount
 * in the user's velocity window (`releaseUnused`) and leaves the deadline index; an approved one
 * keeps counting, and waits in the deadline index for its approval's deadline, when the sweeper
 * expires it unless it was redeemed. Called once, by the caller whose compare-and-swap decided.
 *
 * @param recorded - the caller's own writes about the decision (its audit events, the history),
 *   started just before this call: they go out together with these, and the client is told only
 *   once all of them have landed, so its notification never runs ahead of the audit trail.
 */
export async function afterSettled(deps: Deps, decided: ApprovalRequest, recorded: Promise<unknown> = Promise.resolve()): Promise<void> {
  const { tenant, auth_req_id } = decided;
  await Promise.all([
    recorded,
    ...rolesOf(decided).map((role) => deps.store.setRemove(keys.roleRequests(tenant, role), auth_req_id)),
    decided.state === 'approved' ? trackApprovalDeadline(deps.store, decided, deps.config) : untrackDeadline(deps.store, { tenant, auth_req_id }),
    decided.state === 'denied' ? releaseUnused(deps.store, decided) : releasePending(deps.store, decided),
    announce(deps, decided),
  ]);
  deps.notifier.requestSettled(decided);
}
