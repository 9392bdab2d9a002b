import type { IndexStore, RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import { randomId } from '../runtime/index.ts';
import { hashSecret, type ClientRecord } from './client-record.ts';

/** Input of {@link createClient}: validated metadata; the endpoint is checked by the caller against the deployment mode. */
export type NewClient = Omit<ClientRecord, 'client_id' | 'secret_hash' | 'created_at' | 'token_endpoint_auth_method' | 'profile'> & Partial<Pick<ClientRecord, 'token_endpoint_auth_method' | 'profile'>>;

/**
 * Registers a client and returns its record and, for a secret-based client, its secret. The secret
 * is returned once, here, and stored only as a hash; a `private_key_jwt` client has none.
 */
export async function createClient(store: RecordStore & IndexStore, input: NewClient, nowMs: number): Promise<{ record: ClientRecord; client_secret: string | undefined }> {
  const method = input.token_endpoint_auth_method ?? 'client_secret_basic';
  const client_secret = method === 'private_key_jwt' ? undefined : randomId(32);
  const record: ClientRecord = {
    ...input,
    client_id: randomId(16, 'cli_'),
    token_endpoint_auth_method: method,
    profile: input.profile ?? 'default',
    ...(client_secret ? { secret_hash: hashSecret(client_secret) } : {}),
    created_at: nowMs,
  };
  await store.set(keys.client(record.client_id), JSON.stringify(record));
  // Listed once written: the list never names a client that cannot be found.
  await store.sortedAdd(keys.tenantClients(record.tenant), record.client_id, 0);
  return { record, client_secret };
}

/** A client by id, or null. */
export async function findClient(store: RecordStore, clientId: string): Promise<ClientRecord | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(clientId)) return null;
  const json = await store.get(keys.client(clientId));
  return json ? (JSON.parse(json) as ClientRecord) : null;
}
