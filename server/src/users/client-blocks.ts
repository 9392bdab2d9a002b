import type { RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';

/** A client a user reported ("this wasn't me"): it may not ask that user again until an operator clears it. */
export interface ClientBlock {
  client_id: string;
  /** The request the person reported. */
  auth_req_id: string;
  /** Epoch ms. */
  blocked_at: number;
}

/** Blocks `block.client_id` from asking `sub` (kept until {@link clearClientBlock}; no TTL). */
export async function blockClient(store: RecordStore, tenant: string, sub: string, block: ClientBlock): Promise<void> {
  await store.hashSet(keys.clientBlocks(tenant, sub), { [block.client_id]: JSON.stringify(block) });
}

/** The block of one client for one user, or null. */
export async function findClientBlock(store: RecordStore, tenant: string, sub: string, clientId: string): Promise<ClientBlock | null> {
  const json = (await store.hashGet(keys.clientBlocks(tenant, sub)))?.[clientId];
  return json ? (JSON.parse(json) as ClientBlock) : null;
}

/** Every client blocked for one user, oldest block first. */
export async function listClientBlocks(store: RecordStore, tenant: string, sub: string): Promise<ClientBlock[]> {
  const fields = (await store.hashGet(keys.clientBlocks(tenant, sub))) ?? {};
  return Object.values(fields)
    .map((json) => JSON.parse(json) as ClientBlock)
    .sort((a, b) => a.blocked_at - b.blocked_at);
}

/** Clears a block (the operator's call); answers whether there was one. */
export async function clearClientBlock(store: RecordStore, tenant: string, sub: string, clientId: string): Promise<boolean> {
  return store.hashDelete(keys.clientBlocks(tenant, sub), clientId);
}
