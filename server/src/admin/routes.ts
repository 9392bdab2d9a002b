import { CountersignError, createClientBody, createEnrollmentBody, createUserBody, tenantName } from '@countersign/shared';
import { Hono, type Context } from 'hono';
import { checkClientEndpoints, consoleClientId, createClient, type NewClient } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { createEnrollment } from '../devices/index.ts';
import { readJson } from '../http/index.ts';
import { adminAuth } from './admin-auth.ts';
import { isoTimesInAnswers } from './iso-times.ts';
import { listRequestsHandler } from './list-requests.ts';
import { loadRequest, requestDisplay, settleExpiry } from '../requests/index.ts';
import { registerTenantPolicyRoutes } from '../tenant-policy/index.ts';
import { ensureUser, findUser } from '../users/index.ts';
import { registerUserRoutes } from './user-routes.ts';
import { registerClientRoutes } from './client-routes.ts';
import { registerOperatorUserRoutes } from './operator-user-routes.ts';
import { registerAdminMandateRoutes } from '../mandates/index.ts';

function tenantOf(c: Context): string {
  const parsed = tenantName.safeParse(c.req.query('tenant') ?? 'default');
  if (!parsed.success) throw new CountersignError('invalid_request', 'tenant is malformed.');
  return parsed.data;
}

/**
 * The operator's API under `/api/admin`, behind `Authorization: Bearer <ADMIN_TOKEN>` (wrong tokens
 * limited per source address, see `admin-auth.ts`): register
 * clients and users (with their roles: `POST /users` `{sub, roles?: ['reviewer:finance']}`,
 * `PUT /users/{sub}/roles`), clear a client block, create enrollment links, read a request (with
 * its policy tier, parties and approvals) and its audit trail, and a tenant's own approval policy
 * (`/tenants/{tenant}/policy`, see `tenant-policy/routes.ts`) with its changes' audit
 * (`/audit?tenant=…&type=policy_changed`); and the operator tools (docs/operator-tools.md): lists of users and
 * clients a page at a time, disabling, rotating and deleting a client, a user's devices, revoking
 * one, exporting a user (`client-routes.ts`, `operator-user-routes.ts`, docs/operator-tools.md).
 * Every time in an answer is an RFC 3339 string (`iso-times.ts`).
 */
export function adminRoutes(deps: Deps, adminToken: string): Hono {
  const app = new Hono();
  app.use('*', adminAuth(deps, adminToken));

  // Admin answers hold client secrets, enrollment codes and audit trails: never cached.
  app.use('*', async (c, next) => {
    await next();
    c.header('Cache-Control', 'no-store');
  });
  // Times as RFC 3339 strings, as the client API gives them, never the records' epoch milliseconds.
  app.use('*', isoTimesInAnswers());

  app.post('/clients', async (c) => {
    const body = await readJson(c, createClientBody);
    checkClientEndpoints(body, { production: deps.config.production });
    const { record, client_secret } = await createClient(deps.store, body as NewClient, deps.clock.now());
    // The tenant's audit chain is known to the retention before its first event, which may be a refusal.
    await deps.audit.track(record.tenant);
    const { secret_hash: _hash, ...client } = record;
    return c.json({ ...client, ...(client_secret ? { client_secret } : {}) }, 201, { 'Cache-Control': 'no-store' });
  });

  app.post('/users', async (c) => {
    const body = await readJson(c, createUserBody);
    const { user, created } = await ensureUser(deps.store, body, deps.clock.now());
    await deps.audit.track(user.tenant);
    if (created && user.roles.length > 0) await deps.audit.record({ type: 'roles_changed', tenant: user.tenant, sub: user.sub, channel: 'admin', detail: { from: '', to: user.roles.join(' ') } });
    return c.json(user, created ? 201 : 200);
  });

  // Listing users and clients, disabling, rotating, deleting clients, revoking devices, exports (docs/operator-tools.md).
  // Before user-routes.ts: `GET /users` is the list, `GET /users/{sub}` one user.
  registerOperatorUserRoutes(app, deps);
  registerClientRoutes(app, deps);
  // Roles (reviewers) and the blocks of "this wasn't me": see user-routes.ts.
  registerUserRoutes(app, deps);
  // A tenant's own approval policy, its revisions and their audit: see tenant-policy/routes.ts.
  registerTenantPolicyRoutes(app, deps);
  // Stopping a standing mandate (docs/mandates.md).
  registerAdminMandateRoutes(app, deps);

  app.post('/users/:sub/enrollments', async (c) => {
    const body = await readJson(c, createEnrollmentBody, { optional: true });
    const user = await findUser(deps.store, body.tenant, c.req.param('sub'));
    if (!user) throw new CountersignError('not_found', 'No such user.');
    return c.json(await createEnrollment(deps, user), 201, { 'Cache-Control': 'no-store' });
  });

  app.get('/requests', listRequestsHandler(deps));
  app.get('/requests/:auth_req_id', async (c) => {
    const found = await loadRequest(deps.store, tenantOf(c), c.req.param('auth_req_id'));
    if (!found) throw new CountersignError('not_found', 'No such request.');
    const request = await settleExpiry(deps, found);
    // Neither the token's id nor the number-matching code the agent shows belongs in the operator's view.
    const { token_jti: _jti, binding_code: _code, ...stored } = request;
    return c.json({ request: stored, display: requestDisplay(request, deps.clock.now(), undefined, await consoleClientId(deps.store, request.tenant)) });
  });

  app.get('/audit', async (c) => {
    const authReqId = c.req.query('auth_req_id');
    // The tenant's policy changes (`policy_changed`, with actor and diff), oldest first: they belong to no request.
    if (authReqId === undefined && c.req.query('type') === 'policy_changed') return c.json({ events: await deps.audit.policyChanges(tenantOf(c)) });
    if (!authReqId || !/^[A-Za-z0-9_-]{16,128}$/.test(authReqId)) throw new CountersignError('invalid_request', 'auth_req_id is required.');
    return c.json({ events: await deps.audit.forRequest(tenantOf(c), authReqId) });
  });

  return app;
}
