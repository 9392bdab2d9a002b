import { CountersignError, tenantName, type MandateDetailResponse, type MandateRevokeResponse } from '@countersign/shared';
import type { Hono } from 'hono';
import { z } from 'zod';
import type { Deps } from '../deps.ts';
import type { DeviceVariables } from '../devices/index.ts';
import { readJson } from '../http/index.ts';
import { isRequestId, requestOf } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { exportMandateEvidence } from './evidence/index.ts';
import { listMandates, mandateView } from './mandate-view.ts';
import { revokeMandate } from './revoke-mandate.ts';
import { revokeOptions, verifyRevoke } from './revoke-prompt.ts';

/** `POST /api/device/mandates/{auth_req_id}/revoke` body: the assertion made with `options.revoke`. */
export const revokeBody = z.strictObject({ response: z.record(z.string(), z.unknown()) });

/** The view of one of the session user's mandates; another user's, or none, is not found (docs/design.md guarantee 5). */
async function ownView(deps: Deps, tenant: string, sub: string, authReqId: string) {
  const fields = isRequestId(authReqId) ? await deps.store.hashGet(keys.request(tenant, authReqId)) : null;
  const view = fields && fields.sub === sub ? mandateView(fields, deps.clock.now()) : null;
  if (!view) throw new CountersignError('not_found', 'No such mandate.');
  return { view, fields: fields! };
}

/**
 * The person's mandates, for the approver PWA (docs/mandates.md "The person stays in charge"),
 * mounted under `/api/device` after the device session and Origin checks of `deviceRoutes`:
 *
 * - `GET /mandates` → `{mandates: MandateView[]}`, active first;
 * - `GET /mandates/{auth_req_id}` → `{mandate, options: {revoke?}}`: the revoke prompt (WebAuthn
 *   options over SHA-256(JCS({auth_req_id, details_hash, decision: 'revoke', nonce}))) while active;
 * - `POST /mandates/{auth_req_id}/revoke` `{response}` → `{mandate}`: verified by passkey
 *   (`verifyRevoke`), then `revokeMandate`.
 *
 * @param app - the device router, with its session middleware already applied.
 */
export function registerDeviceMandateRoutes(app: Hono<{ Variables: DeviceVariables }>, deps: Deps): void {
  app.get('/mandates', async (c) => {
    const session = c.get('session');
    return c.json(await listMandates(deps, session.tenant, session.sub), 200, { 'Cache-Control': 'no-store' });
  });

  app.get('/mandates/:auth_req_id', async (c) => {
    const session = c.get('session');
    const { view, fields } = await ownView(deps, session.tenant, session.sub, c.req.param('auth_req_id'));
    const options = view.status === 'active' ? { revoke: (await revokeOptions(deps, requestOf(fields)!)) as unknown as Record<string, unknown> } : {};
    return c.json({ mandate: view, options } satisfies MandateDetailResponse, 200, { 'Cache-Control': 'no-store' });
  });

  app.post('/mandates/:auth_req_id/revoke', async (c) => {
    const session = c.get('session');
    const body = await readJson(c, revokeBody);
    const { request, device_id } = await verifyRevoke(deps, session, c.req.param('auth_req_id'), body.response);
    await revokeMandate(deps, { tenant: session.tenant, auth_req_id: request.auth_req_id, by: { channel: 'device', device_id } });
    const { view } = await ownView(deps, session.tenant, session.sub, request.auth_req_id);
    return c.json({ mandate: view } satisfies MandateRevokeResponse, 200, { 'Cache-Control': 'no-store' });
  });
}

/**
 * The operator's mandate routes, under `/api/admin` (behind its bearer token):
 * - `POST /mandates/{auth_req_id}/revoke?tenant=…` → `{mandate: MandateView}`, audited `mandate_revoked` on the admin channel;
 * - `GET /mandates/{auth_req_id}/evidence?tenant=…` → `MandateEvidence` (docs/mandates.md "Evidence"), as a download.
 */
export function registerAdminMandateRoutes(app: Hono, deps: Deps): void {
  const tenantOf = (value: string | undefined) => {
    const parsed = tenantName.safeParse(value ?? 'default');
    if (!parsed.success) throw new CountersignError('invalid_request', 'tenant is malformed.');
    return parsed.data;
  };
  app.post('/mandates/:auth_req_id/revoke', async (c) => {
    const request = await revokeMandate(deps, { tenant: tenantOf(c.req.query('tenant')), auth_req_id: c.req.param('auth_req_id'), by: { channel: 'admin' } });
    const fields = await deps.store.hashGet(keys.request(request.tenant, request.auth_req_id));
    return c.json({ mandate: fields ? mandateView(fields, deps.clock.now()) : null });
  });

  app.get('/mandates/:auth_req_id/evidence', async (c) => {
    const evidence = await exportMandateEvidence(deps, tenantOf(c.req.query('tenant')), c.req.param('auth_req_id'));
    return c.json(evidence, 200, { 'Cache-Control': 'no-store', 'Content-Disposition': `attachment; filename="${evidence.auth_req_id}-evidence.json"` });
  });
}
