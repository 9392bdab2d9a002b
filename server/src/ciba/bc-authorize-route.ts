import { CountersignError, type BcAuthorizeResponse } from '@countersign/shared';
import type { Context } from 'hono';
import { authenticateClient, limitClient, useJtiOnce } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { readForm } from '../http/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { createRequest } from './create-request.ts';
import { parseBackchannelRequest } from './parse-backchannel-request.ts';
import { readAuthenticationParams } from './request-object.ts';

/**
 * `POST /bc-authorize`: authenticate the client, validate, store, push, answer
 * `{auth_req_id, expires_in, interval}`. A refusal stores nothing and is audited with its code.
 * A signed request's `jti` is used once, after validation and before anything is stored.
 * A client over its rate limit gets 429 `too_many_requests`, and nothing is stored or audited.
 * @see CIBA Core 1.0 §7, §7.1.1 (signed request)
 */
export function bcAuthorizeHandler(deps: Deps) {
  return async function bcAuthorize(c: Context): Promise<Response> {
    const form = await readForm(c);
    const client = await authenticateClient(c, deps, form);
    // Before the try: a call over the client's limit is not audited, so a flood stores nothing.
    await limitClient(deps, 'bcAuthorize', client);
    try {
      const { params, requestObject } = await readAuthenticationParams(form, client, deps.config.publicUrl, deps.clock.now());
      const input = parseBackchannelRequest(params, client, deps.config);
      if (requestObject && !(await useJtiOnce(deps.store, 'request', client.client_id, requestObject.jti, requestObject.exp, deps.clock.now()))) {
        throw new CountersignError('invalid_request', 'request: this request object was already used (jti).');
      }
      const { request } = await createRequest(deps, client, input);
      const body: BcAuthorizeResponse = {
        auth_req_id: request.auth_req_id,
        expires_in: secondsUntil(request.expires_at, deps.clock.now()),
        interval: request.interval,
        // Number matching (the policy tier asks for it): the code the agent shows the person.
        ...(request.binding_code ? { binding_code: request.binding_code } : {}),
      };
      return c.json(body, 200, { 'Cache-Control': 'no-store' });
    } catch (error) {
      if (error instanceof CountersignError && error.expose) {
        await deps.audit.record({ type: 'refused', reason: error.code, tenant: client.tenant, client_id: client.client_id, channel: 'agent', detail: { endpoint: 'bc-authorize' } });
      }
      throw error;
    }
  };
}
