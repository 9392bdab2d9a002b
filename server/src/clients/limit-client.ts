import { enforceRate, type RateLimitDeps } from '../rate-limits/index.ts';
import type { ClientRecord } from './client-record.ts';

/** What each per-client limit is called in its refusal. */
const ENDPOINTS = { bcAuthorize: '/bc-authorize', token: '/token', redeem: '/redeem' } as const;

/**
 * Counts one call of an authenticated client against its limit at `/bc-authorize`, `/token` or
 * `/redeem` (`RATE_LIMIT_BC_AUTHORIZE`, `_TOKEN`, `_REDEEM`), keyed by its tenant and `client_id`;
 * called right after authentication, before anything is read for the call, so a refused call
 * stores, audits and logs nothing. Keyed by the authenticated client, never by an id a caller
 * merely names, so no one can spend another client's allowance.
 *
 * `/token` answers `slow_down` (CIBA Core §11: poll less often), which every CIBA client already
 * backs off on; its per-request poll interval is the `slow_down` of `Store.pollThrottle`, this is
 * the flood over many `auth_req_id`s at once.
 *
 * @throws CountersignError 429 `too_many_requests` (`slow_down` at `/token`) with `Retry-After`.
 * @see CIBA Core 1.0 §11, RFC 6585 §4
 */
export async function limitClient(deps: RateLimitDeps, limit: keyof typeof ENDPOINTS, client: Pick<ClientRecord, 'tenant' | 'client_id'>): Promise<void> {
  const description = limit === 'token' ? 'This client polls /token too often: poll less often.' : `Too many calls of ${ENDPOINTS[limit]} by this client.`;
  await enforceRate(deps, limit, `${client.tenant}:${client.client_id}`, description, limit === 'token' ? 'slow_down' : 'too_many_requests');
}
