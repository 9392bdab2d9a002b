import { z } from 'zod';
import type { AuthorizationDetails } from '@countersign/shared';
import { CIBA_GRANT_TYPE, type OutcomeReport } from '@countersign/shared';
import { createClientCredentials, type ClientAuthentication } from './client-authentication.ts';
import { bcAuthorizeResponse, clientRequestView, errorFromResponse, readEmptyResponse, readJson, readResponse, redeemResponse, tokenResponse } from './responses.ts';
import { sleep as defaultSleep } from './sleep.ts';
import type { AgentClient, AgentClientOptions, ApprovalRequest, DecisionResult, RedeemOptions, TokenPollResult, WaitForDecisionOptions } from './types.ts';

/** The token endpoint's error words that say "not yet" or "no" rather than "broken" (CIBA Core §11). */
const POLL_STATES = {
  authorization_pending: 'pending',
  slow_down: 'slow_down',
  access_denied: 'denied',
  expired_token: 'expired',
} as const;

/** CIBA Core §11: after `slow_down`, every later poll waits at least 5 s longer. */
const SLOW_DOWN_STEP_SECONDS = 5;

const pollError = z.object({ error: z.enum(Object.keys(POLL_STATES) as [keyof typeof POLL_STATES]) });

/**
 * Creates the agent client of Countersign: fetch-based, so it runs in Node.js (20 or later) and in
 * browsers; `fetch`, `sleep`, `now` and `newId` can be injected.
 *
 * The client authenticates with the method it was registered with (`auth`, see
 * {@link ClientAuthentication}); `clientSecret` alone means `client_secret_basic`. The secret, the
 * private key and the tokens never appear in an error message or a log line; error descriptions
 * are the server's.
 *
 * @throws TypeError when `issuer` is not an absolute http(s) URL, when both or neither of `auth`
 *   and `clientSecret` are given, or when `auth` is unusable (an empty secret, a public key, an
 *   algorithm other than ES256 or PS256).
 * @see CIBA Core 1.0, RFC 6749 §2.3.1 (client_secret_basic, client_secret_post), RFC 7523 §2.2
 *   and OpenID Connect Core 1.0 §9 (private_key_jwt)
 * @example Ask, wait, redeem, report
 * ```ts
 * const countersign = createAgentClient({ issuer: 'http://localhost:8080', clientId, clientSecret });
 * const details = [{ type: 'payment', transaction_id: 'refund_1042', amount_minor: 49000, currency: 'EUR',
 *   payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];
 * const { auth_req_id, interval } = await countersign.requestApproval({ login_hint: 'alice', authorization_details: details });
 * const decision = await countersign.waitForDecision(auth_req_id, { interval });
 * if (decision.status === 'approved') {
 *   const redemption = await countersign.redeem(decision.token.access_token, details);
 *   // … run the action with redemption.idempotency_key …
 *   await countersign.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_123' });
 * }
 * ```
 * @example A client registered with `token_endpoint_auth_method: 'private_key_jwt'`
 * ```ts
 * const privateJwk = JSON.parse(process.env.COUNTERSIGN_PRIVATE_JWK); // {kty: 'EC', crv: 'P-256', d, x, y, kid}
 * const countersign = createAgentClient({ issuer, clientId, auth: { method: 'private_key_jwt', privateKey: privateJwk } });
 * ```
 */
export function createAgentClient(options: AgentClientOptions): AgentClient {
  const issuer = normaliseIssuer(options.issuer);
  const { clientId } = options;
  const fetch = options.fetch ?? ((url, init) => globalThis.fetch(url, init));
  const sleep = options.sleep ?? defaultSleep;
  const now = options.now ?? (() => Date.now());
  const newId = options.newId ?? (() => globalThis.crypto.randomUUID());
  // The server accepts the issuer as an assertion's `aud` at every endpoint (and so does openid-client send it).
  const credentials = createClientCredentials(authOf(options), { clientId, audience: issuer, now, newId });

  async function send(path: string, init: { method: 'GET' | 'POST'; form?: URLSearchParams; json?: Record<string, unknown>; signal?: AbortSignal | undefined }) {
    const { authorization, params } = await credentials.next();
    const headers: Record<string, string> = { accept: 'application/json', ...(authorization === undefined ? {} : { authorization }) };
    let body: string | undefined;
    if (init.form) {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      const form = new URLSearchParams(init.form);
      for (const [name, value] of Object.entries(params)) form.set(name, value);
      body = form.toString();
    } else if (init.json !== undefined) {
      headers['content-type'] = 'application/json';
      // The JSON endpoints take client authentication as body members of the form parameters' names.
      body = JSON.stringify({ ...init.json, ...params });
    }
    // `redirect: 'error'`: an OAuth endpoint never redirects, and following one would replay the
    // client's credentials (and a token) to wherever the redirect points.
    return fetch(`${issuer}${path}`, {
      method: init.method,
      headers,
      ...(body === undefined ? {} : { body }),
      redirect: 'error',
      ...(init.signal ? { signal: init.signal } : {}),
    });
  }

  async function requestApproval(request: ApprovalRequest) {
    const form = new URLSearchParams({
      scope: request.scope ?? 'openid',
      login_hint: request.login_hint,
      authorization_details: JSON.stringify(request.authorization_details),
    });
    if (request.binding_message !== undefined) form.set('binding_message', request.binding_message);
    if (request.requested_expiry !== undefined) form.set('requested_expiry', String(request.requested_expiry));
    if (request.client_notification_token !== undefined) form.set('client_notification_token', request.client_notification_token);
    return readResponse(await send('/bc-authorize', { method: 'POST', form }), bcAuthorizeResponse, 'bc-authorize');
  }

  async function pollToken(auth_req_id: string, pollOptions: { signal?: AbortSignal } = {}): Promise<TokenPollResult> {
    const form = new URLSearchParams({ grant_type: CIBA_GRANT_TYPE, auth_req_id });
    const response = await send('/token', { method: 'POST', form, signal: pollOptions.signal });
    if (response.ok) return { status: 'approved', token: await readResponse(response, tokenResponse, 'token') };
    const json = await readJson(response);
    const waiting = pollError.safeParse(json);
    if (waiting.success) return { status: POLL_STATES[waiting.data.error] };
    throw errorFromResponse(response, json, 'token');
  }

  async function waitForDecision(auth_req_id: string, { interval, signal, timeoutSeconds }: WaitForDecisionOptions): Promise<DecisionResult> {
    if (!Number.isFinite(interval) || interval < 0) throw new RangeError('interval must be a non-negative number of seconds');
    const deadline = timeoutSeconds === undefined ? Number.POSITIVE_INFINITY : now() + timeoutSeconds * 1000;
    let seconds = interval;
    for (;;) {
      signal?.throwIfAborted();
      if (now() + seconds * 1000 > deadline) {
        throw new DOMException(`no decision on the request within ${timeoutSeconds} s`, 'TimeoutError');
      }
      await sleep(seconds * 1000, signal);
      // An injected sleep may ignore the signal: check again before spending a poll.
      signal?.throwIfAborted();
      const result = await pollToken(auth_req_id, signal ? { signal } : {});
      if (result.status === 'slow_down') seconds += SLOW_DOWN_STEP_SECONDS;
      else if (result.status !== 'pending') return result;
    }
  }

  async function redeem(access_token: string, authorization_details: AuthorizationDetails, { current_versions }: RedeemOptions = {}) {
    const json = { token: access_token, authorization_details, ...(current_versions === undefined ? {} : { current_versions }) };
    const response = await send('/redeem', { method: 'POST', json });
    return readResponse(response, redeemResponse, 'redeem');
  }

  async function reportOutcome(redemption_id: string, outcome: OutcomeReport) {
    const response = await send(`/redemptions/${encodeURIComponent(redemption_id)}/outcome`, { method: 'POST', json: outcome });
    await readEmptyResponse(response, 'outcome');
  }

  async function getRequest(auth_req_id: string) {
    const path = `/requests/${encodeURIComponent(auth_req_id)}`;
    // GET has no body, so only the Basic header can authenticate it; the other methods POST a form
    // of nothing but their credentials (docs/design.md "Agent and executor",
    // `POST /requests/{auth_req_id}`).
    const response = await send(path, credentials.method === 'client_secret_basic' ? { method: 'GET' } : { method: 'POST', form: new URLSearchParams() });
    return readResponse(response, clientRequestView, 'requests');
  }

  return { issuer, clientId, authMethod: credentials.method, requestApproval, pollToken, waitForDecision, redeem, reportOutcome, getRequest };
}

/** The client authentication the options name: `auth`, or `clientSecret` as `client_secret_basic`. */
function authOf(options: AgentClientOptions): ClientAuthentication {
  if (options.auth !== undefined && options.clientSecret !== undefined) throw new TypeError('give auth or clientSecret, not both');
  if (options.auth !== undefined) return options.auth;
  if (options.clientSecret === undefined) throw new TypeError('give auth (or clientSecret for client_secret_basic)');
  return { method: 'client_secret_basic', clientSecret: options.clientSecret };
}

/** The issuer as an origin plus optional path, without a trailing slash, so `${issuer}/token` is right. */
function normaliseIssuer(issuer: string): string {
  const url = new URL(issuer);
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError('issuer must be an http(s) URL');
  if (url.search || url.hash) throw new TypeError('issuer must not hold a query or fragment');
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}
