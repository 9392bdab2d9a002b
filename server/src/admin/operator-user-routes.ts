import { CountersignError, identifier, tenantName } from '@countersign/shared';
import type { Context, Hono } from 'hono';
import type { Deps } from '../deps.ts';
import { listOperatorDevices, revokeDevice } from '../devices/index.ts';
import { listHistory } from '../history/index.ts';
import { keys } from '../store/index.ts';
import { findUser, listClientBlocks, type UserRecord } from '../users/index.ts';
import { matchesQuery, pageIndex, readPageQuery, rfc3339 } from './page.ts';

function tenantOf(c: Context): string {
  const parsed = tenantName.safeParse(c.req.query('tenant') ?? 'default');
  if (!parsed.success) throw new CountersignError('invalid_request', 'tenant is malformed.');
  return parsed.data;
}

function subOf(c: Context): string {
  const parsed = identifier(128).safeParse(c.req.param('sub'));
  if (!parsed.success) throw new CountersignError('not_found', 'No such user.');
  return parsed.data;
}

/** A user as the operator's list shows it; `created_at` as an RFC 3339 string. */
export interface UserView {
  sub: string;
  tenant: string;
  display_name: string;
  roles: string[];
  created_at: string;
}

function userView(user: UserRecord): UserView {
  return { sub: user.sub, tenant: user.tenant, display_name: user.display_name, roles: user.roles, created_at: rfc3339(user.created_at)! };
}

async function requireUser(deps: Deps, tenant: string, sub: string): Promise<UserRecord> {
  const user = await findUser(deps.store, tenant, sub);
  if (!user) throw new CountersignError('not_found', 'No such user.');
  return user;
}

/**
 * The operator's user tools (docs/operator-tools.md), on the admin API, each `?tenant=` (`default` when absent):
 *
 * - `GET /users?q=&cursor=&limit=` → `{users: UserView[], next_cursor}`: the tenant's users by
 *   `sub`, `q` matching the sub or the display name (case-insensitive), 50 a page (at most 200).
 * - `GET /users/{sub}/devices` → `{devices: OperatorDeviceView[], next_cursor: null}`: all of them
 *   (a user has at most `MAX_DEVICES_PER_USER`), so there is never a next page.
 * - `DELETE /users/{sub}/devices/{device_id}` → `{device_id, notified}`: revokes a lost device
 *   (passkey and push subscriptions gone; audited `device_removed` by `operator`), and tells the
 *   user's other devices by push; `notified` is how many push subscriptions accepted the notice.
 * - `GET /users/{sub}/export` → a JSON download (`Content-Disposition: attachment`) of what the
 *   server holds about the user: record and roles, devices (no keys), client blocks, and the
 *   requests in their history with state and outcome (audited `user_exported`).
 *
 * @throws CountersignError `not_found` (user, device), `invalid_request` (tenant, limit, cursor, q).
 */
export function registerOperatorUserRoutes(app: Hono, deps: Deps): void {
  app.get('/users', async (c) => {
    const tenant = tenantOf(c);
    const query = readPageQuery(c);
    const page = await pageIndex(
      deps.store,
      keys.tenantUsers(tenant),
      query,
      (sub) => findUser(deps.store, tenant, sub),
      (user) => matchesQuery(query.q, user.sub, user.display_name),
    );
    return c.json({ users: page.items.map(userView), next_cursor: page.next_cursor });
  });

  app.get('/users/:sub/devices', async (c) => {
    const tenant = tenantOf(c);
    const user = await requireUser(deps, tenant, subOf(c));
    return c.json({ devices: await listOperatorDevices(deps, tenant, user.sub), next_cursor: null });
  });

  app.delete('/users/:sub/devices/:device_id', async (c) => {
    const tenant = tenantOf(c);
    const user = await requireUser(deps, tenant, subOf(c));
    const deviceId = c.req.param('device_id');
    if (!/^dev_[A-Za-z0-9_-]{4,60}$/.test(deviceId)) throw new CountersignError('not_found', 'No such device.');
    return c.json(await revokeDevice(deps, tenant, user.sub, deviceId));
  });

  app.get('/users/:sub/export', async (c) => {
    const tenant = tenantOf(c);
    const user = await requireUser(deps, tenant, subOf(c));
    const [devices, blocks, history] = await Promise.all([listOperatorDevices(deps, tenant, user.sub), listClientBlocks(deps.store, tenant, user.sub), listHistory(deps, user)]);
    // Each request's own trail, read through its index in the tenant's chain (at most `HISTORY_LIMIT`
    // requests). Events about the user that name no request (devices, roles) are in the chain
    // only: it has no per-user index (docs/operator-tools.md).
    const requests = await Promise.all(history.map(async (entry) => ({ ...entry, events: await deps.audit.forRequest(tenant, entry.auth_req_id) })));
    await deps.audit.record({ type: 'user_exported', tenant, sub: user.sub, channel: 'admin' });
    const exported = {
      exported_at: rfc3339(deps.clock.now()),
      user: userView(user),
      devices,
      blocks: blocks.map((block) => ({ ...block, blocked_at: rfc3339(block.blocked_at) })),
      requests,
    };
    return c.json(exported, 200, { 'Content-Disposition': `attachment; filename="countersign-user-${user.sub}.json"` });
  });
}
