import { describe, expect, it } from 'vitest';
import { keys, MemoryStore } from '../store/index.ts';
import { reserveRequest } from './limits.ts';
import { loadPolicy } from './load-policy.ts';

const T = 1_795_977_923_000;

describe('reserveRequest', () => {
  const input = (amounts: Record<string, number>) => ({ tenant: 'default', sub: 'alice', client_id: 'cli_a', auth_req_id: `req_${'a'.repeat(40)}`, expires_at: T + 300_000, amounts });

  it('refuses an amount under a name that is not an ISO 4217 code before it asks any window', async () => {
    const store = new MemoryStore({ now: () => T });
    const deps = { store, clock: { now: () => T }, policy: await loadPolicy() };
    // Three upper-case letters, as the store's layout can keep, but no currency.
    await expect(reserveRequest(deps, input({ XYZ: 100 }))).rejects.toThrow(/XYZ is not an ISO 4217 currency code/);
    expect(await store.sortedWindowMembers(keys.pendingRequests('default', 'alice'), T, 0)).toStrictEqual([]);
    expect(await store.delete(keys.window('default', 'velocity-user', 'alice'))).toBe(false);
  });

  it('takes a place for an amount in a currency', async () => {
    const store = new MemoryStore({ now: () => T });
    const deps = { store, clock: { now: () => T }, policy: await loadPolicy() };
    await reserveRequest(deps, input({ EUR: 4900 }));
    expect(await store.sortedWindowMembers(keys.pendingRequests('default', 'alice'), T, 0)).toStrictEqual([`req_${'a'.repeat(40)}`]);
  });
});
