import type { Store } from '../store/index.ts';
import { keys } from '../store/index.ts';
import { randomId } from '../runtime/index.ts';
import { hashSecret, type ClientRecord } from './client-record.ts';

/** Input of {@link createClient}; the endpoint is checked by the caller against the deployment mode. */
export interface NewClient {
  name: string;
  tenant: string;
  token_delivery_mode: ClientRecord['token_delivery_mode'];
  backchannel_client_notification_endpoint?: string;
}

/**
 * Registers a client and returns its record and its secret. The secret is returned once, here,
 * and stored only as a hash.
 */
export async function createClient(store: Store, input: NewClient, nowMs: number): Promise<{ record: ClientRecord; client_secret: string }> {
  const client_secret = randomId(32);
  const record: ClientRecord = {
    client_id: randomId(16, 'cli_'),
    tenant: input.tenant,
    name: input.name,
    secret_hash: hashSecret(client_secret),
    token_delivery_mode: input.token_delivery_mode,
    ...(input.backchannel_client_notification_endpoint
      ? { backchannel_client_notification_endpoint: input.backchannel_client_notification_endpoint }
      : {}),
    created_at: nowMs,
  };
  await store.set(keys.client(record.client_id), JSON.stringify(record));
  return { record, client_secret };
}

/** A client by id, or null. */
export async function findClient(store: Store, clientId: string): Promise<ClientRecord | null> {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(clientId)) return null;
  const json = await store.get(keys.client(clientId));
  return json ? (JSON.parse(json) as ClientRecord) : null;
}
