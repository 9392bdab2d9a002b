import type { Store } from '../store/index.ts';
import { keys } from '../store/index.ts';

/** A person who approves: `sub` inside one tenant. Agents name them with `login_hint` = `sub`. */
export interface UserRecord {
  tenant: string;
  sub: string;
  display_name: string;
  /** Epoch ms. */
  created_at: number;
}

/**
 * Creates a user unless one with that `sub` exists in the tenant; either way returns the stored
 * user and whether it was created (creating the same user twice is harmless).
 */
export async function ensureUser(store: Store, input: { tenant: string; sub: string; display_name?: string }, nowMs: number): Promise<{ user: UserRecord; created: boolean }> {
  const user: UserRecord = { tenant: input.tenant, sub: input.sub, display_name: input.display_name ?? input.sub, created_at: nowMs };
  const created = await store.set(keys.user(input.tenant, input.sub), JSON.stringify(user), { onlyIfAbsent: true });
  return { user: created ? user : (await findUser(store, input.tenant, input.sub))!, created };
}

/** A user, or null. */
export async function findUser(store: Store, tenant: string, sub: string): Promise<UserRecord | null> {
  const json = await store.get(keys.user(tenant, sub));
  return json ? (JSON.parse(json) as UserRecord) : null;
}
