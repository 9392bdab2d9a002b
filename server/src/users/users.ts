import type { IndexStore, RecordStore } from '../store/index.ts';
import { keys } from '../store/index.ts';

/** A person who approves: `sub` inside one tenant. Agents name them with `login_hint` = `sub`. */
export interface UserRecord {
  tenant: string;
  sub: string;
  display_name: string;
  /** Epoch ms. */
  created_at: number;
  /** Roles in the tenant, e.g. `reviewer:finance`: the user reviews the requests whose tier asks for one. */
  roles: string[];
}

/**
 * Creates a user unless one with that `sub` exists in the tenant; either way returns the stored
 * user and whether it was created (creating the same user twice is harmless, and changes nothing:
 * roles of an existing user are set with {@link setRoles}).
 */
export async function ensureUser(store: RecordStore & IndexStore, input: { tenant: string; sub: string; display_name?: string; roles?: string[] }, nowMs: number): Promise<{ user: UserRecord; created: boolean }> {
  const user: UserRecord = { tenant: input.tenant, sub: input.sub, display_name: input.display_name ?? input.sub, created_at: nowMs, roles: input.roles ?? [] };
  const created = await store.set(keys.user(input.tenant, input.sub), JSON.stringify(user), { onlyIfAbsent: true });
  if (created) await Promise.all([store.sortedAdd(keys.tenantUsers(user.tenant), user.sub, 0), ...user.roles.map((role) => store.setAdd(keys.roleMembers(user.tenant, role), user.sub))]);
  return { user: created ? user : (await findUser(store, input.tenant, input.sub))!, created };
}

/** A user, or null. Users stored before roles existed have none. */
export async function findUser(store: RecordStore & IndexStore, tenant: string, sub: string): Promise<UserRecord | null> {
  const json = await store.get(keys.user(tenant, sub));
  if (!json) return null;
  const user = JSON.parse(json) as UserRecord;
  return { ...user, roles: user.roles ?? [] };
}

/**
 * Replaces a user's roles in the tenant and keeps the role member sets (who gets a role's requests
 * pushed) in step. An operator's call, not a hot path: the record and each role's set are written
 * one after another, the record first, so a reviewer who lost a role cannot act on it even while
 * the sets catch up (every decision reads the record).
 *
 * @returns the user as stored, or null when there is no such user.
 */
export async function setRoles(store: RecordStore & IndexStore, tenant: string, sub: string, roles: string[]): Promise<UserRecord | null> {
  const user = await findUser(store, tenant, sub);
  if (!user) return null;
  const updated: UserRecord = { ...user, roles };
  await store.set(keys.user(tenant, sub), JSON.stringify(updated));
  await Promise.all([...user.roles.filter((role) => !roles.includes(role)).map((role) => store.setRemove(keys.roleMembers(tenant, role), sub)), ...roles.map((role) => store.setAdd(keys.roleMembers(tenant, role), sub))]);
  return updated;
}

/** The `sub`s of the tenant's users holding `role`. */
export async function usersWithRole(store: RecordStore & IndexStore, tenant: string, role: string): Promise<string[]> {
  return store.setMembers(keys.roleMembers(tenant, role));
}
