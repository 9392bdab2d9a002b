import type { Deps } from '../deps.ts';
import { keys, type Store } from '../store/index.ts';
import { fromFields, requestOf } from './request-fields.ts';
import { effectiveState, type ApprovalRequest } from './request-record.ts';

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
export type SettleExpiryDeps = Pick<Deps, 'clock' | 'lifecycle'>;

/**
 * Writes down an expiry the clock has already decided: `pending → expired` or
 * `approved → expired` (`Lifecycle.expire`, guarded by the deadline), so it happens once and never
 * races a decision or a redemption that beat the deadline. Whichever caller wins (a poll, the
 * device, the expiry sweeper) makes the transition whose consequences (`consequences.ts`) audit
 * it, announce it, push a `request_expired` notice to the person, tell a ping or push client of a
 * request that expired undecided (CIBA Core §10.2, §12 `expired_token`), and give back the
 * request's places in the user's limits exactly once, however many callers raced.
 *
 * @returns the request as it now stands.
 */
export async function settleExpiry(deps: SettleExpiryDeps, request: ApprovalRequest): Promise<ApprovalRequest> {
  const now = deps.clock.now();
  if (effectiveState(request, now) !== 'expired' || request.state === 'expired') return request;
  const result = await deps.lifecycle.expire(request, now);
  if (result.ok) return result.request;
  return result.fields ? fromFields(result.fields) : { ...request, state: 'expired' };
}
