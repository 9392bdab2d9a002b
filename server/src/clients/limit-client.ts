import { enforceRate, type RateLimitDeps, type RateLimitName } from '../rate-limits/index.ts';
import type { ClientRecord } from './client-record.ts';

/** The per-client calls, each with the limit it counts against and how its refusal reads. */
const CALLS = {
  bcAuthorize: { limit: 'bcAuthorize', code: 'too_many_requests', description: 'Too many calls of /bc-authorize by this client.' },
  token: { limit: 'token', code: 'slow_down', description: 'This client polls /token and /requests too often: poll less often.' },
  requestView: { limit: 'token', code: 'slow_down', description: 'This client polls /token and /requests too often: poll less often.' },
  redeem: { limit: 'redeem', code: 'too_many_requests', description: 'Too many calls of /redeem by this client.' },
  outcome: { limit: 'outcome', code: 'too_many_requests', description: 'Too many outcome reports by this client.' },
} as const satisfies Record<string, { limit: RateLimitName; code: 'too_many_requests' | 'slow_down'; description: string }>;

/** A call an authenticated client is counted for (see {@link limitClient}). */
export type ClientCall = keyof typeof CALLS;

/**
 * Counts one call of an authenticated client against its limit, keyed by its tenant and
 * `client_id`; called right after authentication, before anything is read for the call, so a
 * refused call stores, audits and logs nothing. Keyed by the authenticated client, never by an id a
 * caller merely names, so no one can spend another client's allowance.
 *
 * - `bcAuthorize`: `POST /bc-authorize`, `RATE_LIMIT_BC_AUTHORIZE`.
 * - `token` and `requestView`: `POST /token` and the client's view of a request (`GET` and
 *   `POST /requests/{auth_req_id}`) together, `RATE_LIMIT_TOKEN`: both tell the client a request's
 *   state, so polling either is polling, and reading the view cannot get round `/token`'s
 *   `interval` and `slow_down`. Both answer `slow_down` (CIBA Core §11: poll less often), which
 *   every CIBA client already backs off on; the per-request poll interval is the `slow_down` of
 *   `pollThrottle` (ciba/poll-throttle.ts), this is the flood over many `auth_req_id`s at once.
 * - `redeem`: `POST /redeem`, `RATE_LIMIT_REDEEM`.
 * - `outcome`: `POST /redemptions/{id}/outcome`, `RATE_LIMIT_OUTCOME`, a limit of its own rather
 *   than `/redeem`'s, so an executor redeeming at its full allowance can still report every outcome
 *   (docs/design.md guarantee 8); a conflicting report is audited, so this bounds the trail too.
 *
 * @throws CountersignError 429 `too_many_requests` (`slow_down` for `token` and `requestView`) with `Retry-After`.
 * @see CIBA Core 1.0 §11, RFC 6585 §4
 */
export async function limitClient(deps: RateLimitDeps, call: ClientCall, client: Pick<ClientRecord, 'tenant' | 'client_id'>): Promise<void> {
  const { limit, code, description } = CALLS[call];
  await enforceRate(deps, limit, `${client.tenant}:${client.client_id}`, description, code);
}
