import { CIBA_GRANT_TYPE, CountersignError } from '@countersign/shared';
import type { Context } from 'hono';
import { authenticateClient, limitClient } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { readForm } from '../http/index.ts';
import { effectiveState, loadRequest, settleExpiry } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { issueTokens } from './issue-tokens.ts';
import { pendingDescription } from './pending-description.ts';
import { pollThrottle } from './poll-throttle.ts';

/** A poll that arrives this early is still on time: timers and clocks of two machines drift a little. */
const POLL_LEEWAY_MS = 250;

/**
 * `POST /token` for the CIBA grant: `authorization_pending` (its description says which parties
 * are still needed, see {@link pendingDescription}), `slow_down`, `access_denied`,
 * `expired_token`, `invalid_grant`, or the token response (once). Poll and ping clients are
 * answered alike (a ping only says when to ask); a push client gets `unauthorized_client`.
 *
 * The poll rate is checked and recorded in one atomic step before the state is read, so that ten
 * polls fired together get one `authorization_pending` and nine `slow_down`. A client polling many
 * requests faster than its rate limit gets 429 `slow_down` with `Retry-After` before any is read.
 * An approved request's answer does not depend on the poll rate: its poll is recorded in the same
 * round trip as the tokens are bound.
 *
 * @see CIBA Core 1.0 §10.1 (token request), §10.2 (ping), §11 (token error response); RFC 6749 §5.2
 */
export function tokenHandler(deps: Deps) {
  return async function token(c: Context): Promise<Response> {
    const form = await readForm(c);
    const client = await authenticateClient(c, deps, form);
    if (form.grant_type !== CIBA_GRANT_TYPE) {
      throw new CountersignError(form.grant_type ? 'unsupported_grant_type' : 'invalid_request', form.grant_type ? 'Only the CIBA grant is supported.' : 'grant_type is required.');
    }
    // CIBA Core §10.1 and §11: a push client receives its tokens at its notification endpoint and
    // must not ask here; handing them out again would give one approval two tokens.
    if (client.token_delivery_mode === 'push') {
      throw new CountersignError('unauthorized_client', 'This client is registered for the push mode: its tokens are delivered to its notification endpoint.');
    }
    const authReqId = form.auth_req_id;
    if (!authReqId) throw new CountersignError('invalid_request', 'auth_req_id is required.');

    // The request is read beside the client's rate counter: a pending poll, the hottest call, waits
    // on one round trip for both, and a refused one still writes nothing but the counter.
    let [, request] = await Promise.all([limitClient(deps, 'token', client), loadRequest(deps.store, client.tenant, authReqId)]);
    // Another client's request answers exactly like an unknown one (docs/design.md guarantee 5).
    if (!request || request.client_id !== client.client_id) throw new CountersignError('invalid_grant', 'The auth_req_id is not valid.');

    const noStore = { 'Cache-Control': 'no-store', Pragma: 'no-cache' };
    const throttle = () => pollThrottle(deps.store, keys.request(client.tenant, authReqId), deps.clock.now(), POLL_LEEWAY_MS);
    const state = effectiveState(request, deps.clock.now());
    // The poll rate is about waiting for a decision, so only a pending request's poll is counted: an
    // approved one's tokens are bound at once (the binding is its own compare-and-swap, which a
    // racing poll or expiry makes fail safely), and a poll refused for any other reason changes
    // nothing, its interval included.
    if (state === 'approved') return c.json(await issueTokens(deps, request), 200, noStore);
    const poll = state === 'pending' ? await throttle() : null;
    request = await settleExpiry(deps, request);
    switch (effectiveState(request, deps.clock.now())) {
      case 'pending':
        if (poll?.status === 'slow_down') throw new CountersignError('slow_down', `Poll at most every ${poll.fields?.interval ?? request.interval} seconds.`);
        throw new CountersignError('authorization_pending', pendingDescription(request));
      case 'denied':
        throw new CountersignError('access_denied', 'The user denied the request.');
      case 'expired':
        throw new CountersignError('expired_token', 'The request has expired.');
      case 'redeemed':
        throw new CountersignError('invalid_grant', 'The auth_req_id was already used.');
      case 'approved':
        return c.json(await issueTokens(deps, request), 200, noStore);
    }
  };
}
