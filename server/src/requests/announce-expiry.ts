import { displayAction } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import type { ApprovalRequest } from './request-record.ts';

/** What {@link announceExpiry} needs of the server's dependencies. */
export type AnnounceExpiryDeps = Pick<Deps, 'push' | 'audit' | 'config'>;

/**
 * Tells the person that a request expired unused (issue 4, "Expire loudly"): a Web Push
 * `request_expired` to every device of the user, with the same `Topic` as the request's own push,
 * so a phone that was offline gets the notice instead of a request it can no longer approve; then
 * audits how many went out. The notice says that nothing was done, and lives as long as the
 * request keeps answering (`graceSeconds`), so the PWA can still open it.
 *
 * @param from - the state the request expired from: `pending` (never decided) or `approved` (never redeemed).
 * @see RFC 8030 §5.4 (replacing push messages); CIBA Core 1.0 §7.3 (`expires_in`)
 */
export async function announceExpiry(deps: AnnounceExpiryDeps, request: ApprovalRequest, from: 'pending' | 'approved'): Promise<void> {
  const first = request.authorization_details[0];
  const what = first ? `${request.client_name}: ${displayAction(first).summary}` : request.client_name;
  const summary = from === 'pending' ? `Expired, nothing was done. ${what}` : `Approval expired unused, nothing was done. ${what}`;
  const result = await deps.push.notifyUser({
    tenant: request.tenant,
    sub: request.sub,
    auth_req_id: request.auth_req_id,
    summary,
    ttlSeconds: deps.config.graceSeconds,
    kind: 'request_expired',
  });
  await deps.audit.record({
    type: 'pushed',
    tenant: request.tenant,
    auth_req_id: request.auth_req_id,
    client_id: request.client_id,
    sub: request.sub,
    channel: 'push',
    detail: { kind: 'request_expired', sent: result.sent, removed: result.removed, failed: result.failed },
  });
}
