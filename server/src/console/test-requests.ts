import { tenantName } from '@countersign/shared';
import { Hono } from 'hono';
import { z } from 'zod';
import { adminAuth } from '../admin/index.ts';
import { createRequest, parseBackchannelRequest } from '../ciba/index.ts';
import type { Deps } from '../deps.ts';
import { readJson } from '../http/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { consoleClient } from './console-client.ts';
import { sampleAction, samplePreviews, sampleTransactionId, sampleType } from './sample-actions.ts';

/**
 * `POST /api/admin/test-requests` body: what an agent would send to `/bc-authorize`, as JSON,
 * with the action either written out (`authorization_details`) or named as a server-built
 * `sample` of one type (see `sample-actions.ts`): one of the two, not both. Every field is
 * validated again by the agents' own parser, so a test request is held to the same rules
 * (binding message, action schema, expiry bounds) as a real one.
 */
export const testRequestBody = z
  .strictObject({
    login_hint: z.string().min(1).max(128),
    tenant: tenantName.default('default'),
    /**
     * Checked by the agents' parser (so a bad one is `invalid_authorization_details`, as at `/bc-authorize`).
     * Each action passes untouched: a zod record would drop a member named `__proto__` without a word.
     */
    authorization_details: z.array(z.unknown()).min(1).max(10).optional(),
    /** `payment`, `deletion`, `message`, `access_change` or `record_change`: the server's sample of that type, under a fresh `transaction_id`. */
    sample: sampleType.optional(),
    binding_message: z.string().max(256).optional(),
    /** Seconds, as `requested_expiry` (CIBA Core §7.1). */
    requested_expiry: z.number().int().min(1).max(86_400).optional(),
  })
  .refine((body) => (body.authorization_details === undefined) !== (body.sample === undefined), {
    path: ['sample'],
    message: 'give either authorization_details or sample, not both',
  });

/**
 * The console's way to send a test approval request to a user, behind the admin token. The
 * request is made by the tenant's built-in console client (see `console-client.ts`) through the
 * same steps as `/bc-authorize` minus client authentication: the agents' parser, then
 * `createRequest`, which stores, audits and pushes it, and applies the tenant's policy. Nobody
 * holds the console client's secret, so a test request can be approved or denied and watched,
 * never redeemed.
 *
 * Answers 201 `{auth_req_id, client_id, expires_in, interval}` (and `binding_code` when the
 * policy asks for number matching: the console plays the agent and shows it). `GET /samples`
 * answers `{samples: [{type, label, display: {title, warnings, fields}}]}`: what each sample
 * shows the person, computed as the phone's display is.
 *
 * @throws CountersignError `invalid_request`, `unknown_user_id`, `invalid_binding_message`,
 *   `invalid_authorization_details`, as `/bc-authorize` does.
 */
export function testRequestRoutes(deps: Deps, adminToken: string): Hono {
  const app = new Hono();
  // Mounted under /api/admin, behind the admin API's own check; checked here too, so this route
  // never depends on where it is mounted.
  app.use('*', adminAuth(deps, adminToken));
  // What each sample shows the person, for the console to preview before sending.
  app.get('/samples', (c) => c.json({ samples: samplePreviews() }, 200, { 'Cache-Control': 'no-store' }));
  app.post('/', async (c) => {
    const body = await readJson(c, testRequestBody);
    const client = await consoleClient(deps, body.tenant);
    const details = body.sample
      ? [
          sampleAction(
            body.sample,
            sampleTransactionId(body.sample, (bytes) => deps.ids(bytes)),
          ),
        ]
      : body.authorization_details;
    const params: Record<string, string> = {
      scope: 'openid',
      login_hint: body.login_hint,
      authorization_details: JSON.stringify(details),
      ...(body.binding_message === undefined ? {} : { binding_message: body.binding_message }),
      ...(body.requested_expiry === undefined ? {} : { requested_expiry: String(body.requested_expiry) }),
    };
    const { request } = await createRequest(deps, client, parseBackchannelRequest(params, client, deps.config));
    const { binding_code } = request as { binding_code?: string };
    return c.json(
      {
        auth_req_id: request.auth_req_id,
        client_id: client.client_id,
        expires_in: secondsUntil(request.expires_at, deps.clock.now()),
        interval: request.interval,
        ...(binding_code ? { binding_code } : {}),
      },
      201,
      { 'Cache-Control': 'no-store' },
    );
  });
  return app;
}
