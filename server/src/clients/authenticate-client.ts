import { CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import type { Config } from '../config/index.ts';
import { sourceAddress } from '../http/index.ts';
import { enforceRate } from '../rate-limits/index.ts';
import type { Clock, Logger } from '../runtime/index.ts';
import type { Store } from '../store/index.ts';
import type { ClientCache } from './client-cache.ts';
import { useJtiOnce } from './client-jwt.ts';
import type { ClientRecord } from './client-record.ts';
import { secretMatches } from './client-record.ts';
import { invalidClient, readCredentials, type PresentedCredentials } from './read-credentials.ts';
import { verifyClientAssertion } from './verify-client-assertion.ts';

/** What client authentication reads: a subset of the server's `Deps`. @see RFC 6749 §2.3 */
export interface ClientAuthDeps {
  store: Store;
  clock: Clock;
  /** Client records by id, through the short in-process cache (see `createClientCache`). */
  clients: ClientCache;
  config: Pick<Config, 'publicUrl' | 'rateLimits' | 'trustedProxies'>;
  log: Logger;
}

/**
 * The `aud` values a client assertion may carry here: the issuer (what openid-client sends), the
 * token endpoint (OpenID Connect Core §9 "SHOULD"), and the exact endpoint being called. CIBA
 * Core §7.1 makes the OP accept the first two at the backchannel endpoint as well.
 */
function audiences(c: Context, issuer: string): string[] {
  return [...new Set([issuer, `${issuer}/token`, `${issuer}${c.req.path}`])];
}

/** Checks presented credentials against the client's record; answers the reason it refuses, or null. */
async function refusal(c: Context, deps: ClientAuthDeps, presented: PresentedCredentials, client: ClientRecord | null, bodyless: boolean): Promise<string | null> {
  if (presented.method !== 'private_key_jwt') {
    // Compare even for an unknown client or a key-only one, so the answer takes the same time either way.
    const matches = secretMatches(presented.secret, client?.secret_hash ?? 'x'.repeat(43));
    if (!client) return 'unknown_client';
    const registered = client.token_endpoint_auth_method ?? 'client_secret_basic';
    // Without a body, a client_secret_post client's secret can only travel in the header.
    const sameSecret = bodyless && registered === 'client_secret_post' && presented.method === 'client_secret_basic';
    if (registered !== presented.method && !sameSecret) return 'method_not_registered';
    if (!matches) return 'wrong_secret';
    return client.disabled_at === undefined ? null : 'client_disabled';
  }
  if (!client) return 'unknown_client';
  if (client.token_endpoint_auth_method !== 'private_key_jwt') return 'method_not_registered';
  const nowMs = deps.clock.now();
  const result = await verifyClientAssertion(presented.assertion, client, { audience: audiences(c, deps.config.publicUrl), nowMs });
  if (!result.verified) return result.reason;
  if (client.disabled_at !== undefined) return 'client_disabled';
  // Last, once every check has passed: a refused assertion does not use up its jti.
  if (!(await useJtiOnce(deps.store, 'assertion', client.client_id, result.jti, result.exp, nowMs))) return 'jti_replayed';
  return null;
}

/**
 * Authenticates the calling client with the one method it registered
 * (`token_endpoint_auth_method`): a client_secret_basic client cannot send its secret in the body,
 * a client_secret_post client cannot use the header, and a private_key_jwt client has no secret.
 * A `private_key_jwt` assertion is verified with the client's JWKS and its `jti` used once.
 * With `bodyless` (an endpoint whose request has no body, such as `GET /requests/{id}`), a
 * client_secret_post client may send the same secret with HTTP Basic, which every client holding a
 * secret may use (RFC 6749 §2.3.1); a private_key_jwt client has no way to authenticate there.
 * The record is read through `deps.clients`, so it may be up to `CLIENT_CACHE_TTL_MS` old.
 *
 * Every failure (no credentials, unreadable ones, an unknown client, a wrong secret or assertion)
 * is counted against the source address (`RATE_LIMIT_CLIENT_AUTH_FAILURES`, see
 * `http/source-address.ts`); past the limit a failure answers 429 instead of 401 and is not logged,
 * so a flood of forged credentials cannot fill the log. A success is neither counted nor refused:
 * client secrets are 256 random bits and assertions are signatures, so there is nothing to guess,
 * and refusing good credentials would let one broken agent behind a shared address lock out its
 * neighbours.
 *
 * @param params - the form of a form-encoded endpoint, or the client-authentication members of a
 *   JSON body (`client_id`, `client_secret`, `client_assertion_type`, `client_assertion`).
 * @returns the client's record.
 * @throws CountersignError `invalid_client` (401, with `WWW-Authenticate`) for missing or wrong
 *   credentials, an unknown client, a disabled one (`disabled_at`), or a method the client did not register (which check failed
 *   goes to the log only); `too_many_requests` (429, `Retry-After`) instead once the source
 *   address is over its limit of failures; `invalid_request` for two methods at once.
 * @see RFC 6749 §2.3 and §5.2, RFC 7523 §2.2 and §3, OpenID Connect Core 1.0 §9, RFC 7591 §2
 */
export async function authenticateClient(c: Context, deps: ClientAuthDeps, params: Record<string, string> = {}, options: { bodyless?: boolean } = {}): Promise<ClientRecord> {
  const outcome = await identify(c, deps, params, options.bodyless === true);
  if ('client' in outcome) {
    c.set('client_id', outcome.client.client_id);
    return outcome.client;
  }
  await enforceRate(deps, 'clientAuthFailures', sourceAddress(c, deps.config.trustedProxies), 'Too many failed client authentications from this address.');
  deps.log.warn('client authentication refused', { ...outcome.refused, endpoint: c.req.path });
  throw invalidClient();
}

/** Why an authentication failed, for the log: never a secret, never an assertion. */
interface Refused {
  client_id?: string | undefined;
  method?: PresentedCredentials['method'];
  reason: string;
}

/** The client the credentials prove, or why they prove none. */
async function identify(c: Context, deps: ClientAuthDeps, params: Record<string, string>, bodyless: boolean): Promise<{ client: ClientRecord } | { refused: Refused }> {
  let presented: PresentedCredentials | null;
  try {
    presented = readCredentials(c.req.header('authorization'), params);
  } catch (error) {
    if (error instanceof CountersignError && error.code === 'invalid_client') return { refused: { reason: 'unreadable_credentials' } };
    throw error;
  }
  if (!presented) return { refused: { reason: 'no_credentials' } };
  const client = await deps.clients.find(presented.clientId);
  const reason = await refusal(c, deps, presented, client, bodyless);
  if (reason || !client) return { refused: { client_id: client?.client_id, method: presented.method, reason: reason ?? 'unknown_client' } };
  if (params.client_id !== undefined && params.client_id !== client.client_id) {
    return { refused: { client_id: client.client_id, method: presented.method, reason: 'client_id_mismatch' } };
  }
  return { client };
}
