import { CountersignError, identifier, tenantName } from '@countersign/shared';
import type { Context, Hono } from 'hono';
import { deleteClient, findTenantClient, rotateClientSecret, setClientDisabled, type ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { keys } from '../store/index.ts';
import { matchesQuery, pageIndex, readPageQuery, rfc3339 } from './page.ts';

function tenantOf(c: Context): string {
  const parsed = tenantName.safeParse(c.req.query('tenant') ?? 'default');
  if (!parsed.success) throw new CountersignError('invalid_request', 'tenant is malformed.');
  return parsed.data;
}

/** The `client_id` of the path; anything not shaped like one is not found. */
function clientIdOf(c: Context): string {
  const parsed = identifier(64).safeParse(c.req.param('client_id'));
  if (!parsed.success) throw new CountersignError('not_found', 'No such client.');
  return parsed.data;
}

/** A client as the operator sees it: never its secret's hash; times as RFC 3339 strings. */
export interface ClientView {
  client_id: string;
  tenant: string;
  name: string;
  token_delivery_mode: ClientRecord['token_delivery_mode'];
  token_endpoint_auth_method: ClientRecord['token_endpoint_auth_method'];
  profile: ClientRecord['profile'];
  backchannel_client_notification_endpoint: string | null;
  created_at: string;
  disabled: boolean;
  disabled_at: string | null;
  secret_rotated_at: string | null;
}

/** The operator's view of a client record. */
export function clientView(client: ClientRecord): ClientView {
  return {
    client_id: client.client_id,
    tenant: client.tenant,
    name: client.name,
    token_delivery_mode: client.token_delivery_mode,
    token_endpoint_auth_method: client.token_endpoint_auth_method,
    profile: client.profile,
    backchannel_client_notification_endpoint: client.backchannel_client_notification_endpoint ?? null,
    created_at: rfc3339(client.created_at)!,
    disabled: client.disabled_at !== undefined,
    disabled_at: rfc3339(client.disabled_at),
    secret_rotated_at: rfc3339(client.secret_rotated_at),
  };
}

/**
 * The operator's client administration (docs/operator-tools.md), on the admin API, every route `?tenant=`
 * (`default` when absent); a client of another tenant is not found:
 *
 * - `GET /clients?q=&cursor=&limit=` → `{clients: ClientView[], next_cursor}`: the tenant's clients
 *   by `client_id`, `q` matching the id or the name (case-insensitive), 50 a page (at most 200).
 * - `GET /clients/{client_id}` → `ClientView`.
 * - `POST /clients/{client_id}/disable`, `/enable` → `ClientView` (audited `client_disabled`,
 *   `client_enabled` when it changed anything): see `setClientDisabled` for what disabling does.
 * - `POST /clients/{client_id}/secret` → `{...ClientView, client_secret}`: a new secret, shown this
 *   once; the old one stops working (audited `client_secret_rotated`). Refused for the console's
 *   own client, whose secret nobody may hold.
 * - `DELETE /clients/{client_id}` → 204 (audited `client_deleted`).
 *
 * @throws CountersignError `not_found`, `invalid_request` (tenant, limit, cursor, q; a secret for a key-based client).
 */
export function registerClientRoutes(app: Hono, deps: Deps): void {
  app.get('/clients', async (c) => {
    const tenant = tenantOf(c);
    const query = readPageQuery(c);
    const page = await pageIndex(
      deps.store,
      keys.tenantClients(tenant),
      query,
      (id) => findTenantClient(deps.store, tenant, id),
      (client) => matchesQuery(query.q, client.client_id, client.name),
    );
    return c.json({ clients: page.items.map(clientView), next_cursor: page.next_cursor });
  });

  app.get('/clients/:client_id', async (c) => {
    const client = await findTenantClient(deps.store, tenantOf(c), clientIdOf(c));
    if (!client) throw new CountersignError('not_found', 'No such client.');
    return c.json(clientView(client));
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/clients/:client_id/${action}`, async (c) => {
      const tenant = tenantOf(c);
      const result = await setClientDisabled(deps, tenant, clientIdOf(c), action === 'disable', deps.clock.now());
      if (!result) throw new CountersignError('not_found', 'No such client.');
      if (result.changed) await deps.audit.record({ type: action === 'disable' ? 'client_disabled' : 'client_enabled', tenant, client_id: result.client.client_id, channel: 'admin' });
      return c.json(clientView(result.client));
    });
  }

  app.post('/clients/:client_id/secret', async (c) => {
    const tenant = tenantOf(c);
    const clientId = clientIdOf(c);
    // The console's client (`console/console-client.ts`, its id under this config key; read here
    // directly, since the console imports the admin API) has no secret on purpose: a test request
    // must never be redeemable. A secret given to it would make every test request executable.
    if ((await deps.store.get(keys.config(`console-client:${tenant}`))) === clientId) {
      throw new CountersignError('invalid_request', "The console's own client has no secret, so that test requests can never be executed.");
    }
    const result = await rotateClientSecret(deps, tenant, clientId, deps.clock.now());
    if (!result) throw new CountersignError('not_found', 'No such client.');
    await deps.audit.record({ type: 'client_secret_rotated', tenant, client_id: result.client.client_id, channel: 'admin' });
    return c.json({ ...clientView(result.client), client_secret: result.client_secret });
  });

  app.delete('/clients/:client_id', async (c) => {
    const tenant = tenantOf(c);
    const client = await deleteClient(deps, tenant, clientIdOf(c));
    if (!client) throw new CountersignError('not_found', 'No such client.');
    await deps.audit.record({ type: 'client_deleted', tenant, client_id: client.client_id, channel: 'admin', detail: { name: client.name } });
    return c.body(null, 204);
  });
}
