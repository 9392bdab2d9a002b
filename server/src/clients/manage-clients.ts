import { CountersignError } from '@countersign/shared';
import { randomId } from '../runtime/index.ts';
import type { IndexStore, RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { ClientCache } from './client-cache.ts';
import { hashSecret, type ClientRecord } from './client-record.ts';
import { findClient } from './create-client.ts';

/** What the operator's client changes read and write: a subset of the server's `Deps`. */
export interface ManageClientDeps {
  store: RecordStore & IndexStore;
  /** Forgotten after each change, so this instance sees it at once (others within its TTL). */
  clients: ClientCache;
}

/** Swaps that may lose to another writer of the same client before a change gives up (503). */
const CHANGE_ATTEMPTS = 5;

/**
 * A client of `tenant`, or null: a client of another tenant is not found, so an operator's
 * `?tenant=` cannot reach across tenants.
 */
export async function findTenantClient(store: RecordStore, tenant: string, clientId: string): Promise<ClientRecord | null> {
  const client = await findClient(store, clientId);
  return client?.tenant === tenant ? client : null;
}

/**
 * Rewrites a client with `change` applied, as a compare-and-swap of its record (`Store.replace`),
 * read again on a lost swap, so a disable and a rotation at the same time both hold.
 *
 * @returns the record before and after, or null when there is no such client in the tenant.
 * @throws CountersignError `temporarily_unavailable` (503) after {@link CHANGE_ATTEMPTS} lost swaps.
 */
async function changeClient(deps: ManageClientDeps, tenant: string, clientId: string, change: (current: ClientRecord) => ClientRecord): Promise<{ before: ClientRecord; after: ClientRecord } | null> {
  const key = keys.client(clientId);
  for (let attempt = 1; attempt <= CHANGE_ATTEMPTS; attempt++) {
    const json = await deps.store.get(key);
    const before = json ? (JSON.parse(json) as ClientRecord) : null;
    if (!json || before?.tenant !== tenant) return null;
    const after = change(before);
    if (await deps.store.replace(key, json, JSON.stringify(after))) {
      deps.clients.forget(clientId);
      return { before, after };
    }
  }
  throw new CountersignError('temporarily_unavailable', 'This client is being changed by another call. Try again.');
}

/**
 * Disables (`disabled: true`) or enables a client. A disabled client's every authenticated call
 * (`/bc-authorize`, `/token`, `/redeem`…) is refused 401 `invalid_client`; its pending requests
 * stay as they are (an approver may still decide them, and they expire at their deadline), but
 * no token or redemption can be collected for them while it stays disabled. Enabling is the undo.
 *
 * @returns the client after, and whether anything changed (disabling a disabled client does not).
 */
export async function setClientDisabled(deps: ManageClientDeps, tenant: string, clientId: string, disabled: boolean, nowMs: number): Promise<{ client: ClientRecord; changed: boolean } | null> {
  const result = await changeClient(deps, tenant, clientId, (current) => {
    if (disabled) return current.disabled_at === undefined ? { ...current, disabled_at: nowMs } : current;
    const { disabled_at: _at, ...enabled } = current;
    return enabled;
  });
  if (!result) return null;
  return { client: result.after, changed: (result.before.disabled_at === undefined) !== (result.after.disabled_at === undefined) };
}

/**
 * Gives a secret-based client a new secret and forgets the old one: only its hash was stored, and
 * it is replaced, so the old secret is refused from the next call on this instance (within the
 * client cache's TTL, 5 s, on others).
 *
 * @returns the client and its new secret, shown once; null when there is no such client.
 * @throws CountersignError `invalid_request` for a `private_key_jwt` client (it has keys, no secret).
 */
export async function rotateClientSecret(deps: ManageClientDeps, tenant: string, clientId: string, nowMs: number): Promise<{ client: ClientRecord; client_secret: string } | null> {
  const client_secret = randomId(32);
  const result = await changeClient(deps, tenant, clientId, (current) => {
    if (current.token_endpoint_auth_method === 'private_key_jwt') throw new CountersignError('invalid_request', 'This client authenticates with private_key_jwt: it has keys, not a secret.');
    return { ...current, secret_hash: hashSecret(client_secret), secret_rotated_at: nowMs };
  });
  return result ? { client: result.after, client_secret } : null;
}

/**
 * Deletes a client: its record (from then on it is an unknown client, 401 `invalid_client`) and
 * its place in the tenant's list. Its requests keep their copy of its name and expire as they would.
 *
 * @returns the deleted record, or null when there was none in the tenant.
 */
export async function deleteClient(deps: ManageClientDeps, tenant: string, clientId: string): Promise<ClientRecord | null> {
  const client = await findTenantClient(deps.store, tenant, clientId);
  if (!client) return null;
  await deps.store.delete(keys.client(clientId));
  await deps.store.sortedRemove(keys.tenantClients(tenant), clientId);
  deps.clients.forget(clientId);
  return client;
}
