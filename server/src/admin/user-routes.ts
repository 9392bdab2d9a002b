import { CountersignError, identifier, setRolesBody, tenantName } from '@countersign/shared';
import type { Context, Hono } from 'hono';
import type { Deps } from '../deps.ts';
import { readJson } from '../http/index.ts';
import { clearClientBlock, findUser, listClientBlocks, setRoles } from '../users/index.ts';

function tenantOf(c: Context): string {
  const parsed = tenantName.safeParse(c.req.query('tenant') ?? 'default');
  if (!parsed.success) throw new CountersignError('invalid_request', 'tenant is malformed.');
  return parsed.data;
}

/** A path parameter that must be an identifier (a `sub`, a `client_id`); anything else is not found. */
function pathId(c: Context, name: string): string {
  const parsed = identifier(128).safeParse(c.req.param(name));
  if (!parsed.success) throw new CountersignError('not_found', 'No such resource.');
  return parsed.data;
}

/**
 * The operator's user administration (roles, blocks), mounted on the admin API (bearer `ADMIN_TOKEN`):
 *
 * - `GET /users/{sub}?tenant=` → `{user, blocks}`: the user with their roles, and the clients they blocked.
 * - `PUT /users/{sub}/roles` `{roles: ['reviewer:finance'], tenant?}` → the user: replaces the
 *   user's roles in the tenant (audited `roles_changed`). A reviewer role puts every request whose
 *   tier needs it in that user's inbox; `POST /users` with `roles` sets them when it creates a user.
 * - `DELETE /users/{sub}/blocks/{client_id}?tenant=` → 204: clears a block the user set with
 *   "this wasn't me" (audited `client_unblocked`); 404 when there is none.
 *
 * @throws CountersignError `not_found` (no such user, no such block), `invalid_request` (body, tenant).
 */
export function registerUserRoutes(app: Hono, deps: Deps): void {
  app.get('/users/:sub', async (c) => {
    const tenant = tenantOf(c);
    const user = await findUser(deps.store, tenant, pathId(c, 'sub'));
    if (!user) throw new CountersignError('not_found', 'No such user.');
    return c.json({ user, blocks: await listClientBlocks(deps.store, tenant, user.sub) });
  });

  app.put('/users/:sub/roles', async (c) => {
    const body = await readJson(c, setRolesBody);
    const sub = pathId(c, 'sub');
    const before = await findUser(deps.store, body.tenant, sub);
    const user = before ? await setRoles(deps.store, body.tenant, sub, body.roles) : null;
    if (!before || !user) throw new CountersignError('not_found', 'No such user.');
    await deps.audit.record({ type: 'roles_changed', tenant: body.tenant, sub, channel: 'admin', detail: { from: before.roles.join(' '), to: user.roles.join(' ') } });
    return c.json(user);
  });

  app.delete('/users/:sub/blocks/:client_id', async (c) => {
    const tenant = tenantOf(c);
    const [sub, clientId] = [pathId(c, 'sub'), pathId(c, 'client_id')];
    if (!(await clearClientBlock(deps.store, tenant, sub, clientId))) throw new CountersignError('not_found', 'This client is not blocked for this user.');
    await deps.audit.record({ type: 'client_unblocked', tenant, sub, client_id: clientId, channel: 'admin' });
    return c.body(null, 204);
  });
}
