/**
 * The keys of clients, users and their devices: records, the tenant's client and user lists,
 * credentials, push subscriptions, enrollment codes and device sessions.
 * Part of `keys` (see `keys.ts`, which holds the rules every key follows).
 */
export const peopleKeys = {
  /** String: a client record (JSON), found by `client_id` alone at authentication. */
  client: (clientId: string) => `client:{${clientId}}`,
  /**
   * Sorted set, every score 0: the `client_id`s of a tenant's clients, written when a client is
   * registered and removed when it is deleted; the operator's client list pages through it in
   * byte order (`Store.sortedRangeAfter`). Clients registered before it existed are not in it (a
   * new project needs no backfill; see docs/operator-tools.md). In the tenant's tag.
   */
  tenantClients: (tenant: string) => `clients:{${tenant}}`,
  /** Sorted set, every score 0: the `sub`s of a tenant's users, written when a user is created; as `tenantClients`. */
  tenantUsers: (tenant: string) => `users:{${tenant}}`,
  /** String: a user record (JSON). */
  user: (tenant: string, sub: string) => `user:{${tenant}:${sub}}`,
  /** Set: a user's device ids. */
  userDevices: (tenant: string, sub: string) => `devices:{${tenant}:${sub}}`,
  /** String: one device (JSON: credential, counter, name). */
  device: (tenant: string, sub: string, deviceId: string) => `device:{${tenant}:${sub}}:${deviceId}`,
  /**
   * String: a credential id registered in the tenant → `{sub, device_id}` of the one device holding
   * it, claimed with SET NX before the device is written (WebAuthn Level 3 §7.1 step 26), released
   * when the device is removed. A tag per credential: nothing is written together with it.
   */
  credential: (tenant: string, credentialId: string) => `cred:{${tenant}:${credentialId}}`,
  /** Hash: one device's push subscriptions, endpoint → `PushSubscription` JSON. */
  devicePush: (tenant: string, sub: string, deviceId: string) => `push:{${tenant}:${sub}}:${deviceId}`,
  /** String (single use): an enrollment code → its record. */
  enrollment: (code: string) => `enroll:{${code}}`,
  /** String: a device session → `{tenant, sub, device_id}`. */
  session: (sessionId: string) => `session:{${sessionId}}`,
} as const;
