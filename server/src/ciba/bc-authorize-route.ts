import { CountersignError, type BcAuthorizeResponse } from '@countersign/shared';
import type { Context } from 'hono';
import { authenticateClient } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { readForm } from '../http/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { createRequest } from './create-request.ts';
import { parseBackchannelRequest } from './parse-backchannel-request.ts';

/**
 * `POST /bc-authorize`: authenticate the client, validate, store, push, answer
 * `{auth_req_id, expires_in, interval}`. A refusal stores nothing and is audited with its code.
 * @see CIBA Core 1.0 §7
 */
export function bcAuthorizeHandler(deps: Deps) {
  return async function bcAuthorize(c: Context): Promise<Response> {
    const form = await readForm(c);
    const client = await authenticateClient(c, deps.store, form);
    try {
      const input = parseBackchannelRequest(form, client, deps.config);
      const { request } = await createRequest(deps, client, input);
      const body: BcAuthorizeResponse = {
        auth_req_id: request.auth_req_id,
        expires_in: secondsUntil(request.expires_at, deps.clock.now()),
        interval: request.interval,
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
