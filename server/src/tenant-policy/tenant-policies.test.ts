import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../policy/index.ts';
import { keys, MemoryStore } from '../store/index.ts';
import { readRevision, swapRevision } from './policy-record.ts';
import { createTenantPolicies } from './tenant-policies.ts';

const T = 1_795_977_923_000;
const meta = { updated_at: T, updated_by: 'ops' };

async function setUp() {
  const store = new MemoryStore({ now: () => T });
  const defaultPolicy = await loadPolicy();
  let reads = 0;
  const counted = { hashGetField: (key: string, field: string) => (reads++, store.hashGetField(key, field)) };
  return { store, defaultPolicy, policies: createTenantPolicies({ store: counted, defaultPolicy }), reads: () => reads };
}

describe('tenant policy revisions', () => {
  it('swaps a revision only from the one expected, the first one too', async () => {
    const { store } = await setUp();
    expect(await readRevision(store, 'acme')).toBe(0);
    expect(await swapRevision(store, 'acme', 1, '{}', meta)).toBe(false);
    expect(await swapRevision(store, 'acme', 0, '{"a":1}', meta)).toBe(true);
    expect(await swapRevision(store, 'acme', 0, '{"a":2}', meta)).toBe(false);
    expect(await swapRevision(store, 'acme', 1, null, meta)).toBe(true);
    expect(await store.hashGet(keys.tenantPolicy('acme'))).toMatchObject({ tenant: 'acme', revision: '2', 'r:1': '{"a":1}', 'r:2': '' });
    expect(await readRevision(store, 'globex')).toBe(0);
  });
});

describe('createTenantPolicies', () => {
  it('answers revision 0 as the default without reading, and a stored revision once, then from its cache', async () => {
    const { store, defaultPolicy, policies, reads } = await setUp();
    expect(await policies.at('acme', 0)).toStrictEqual({ revision: 0, policy: defaultPolicy, source: 'default' });
    expect(reads()).toBe(0);
    const own = { ...defaultPolicy, limits: { ...defaultPolicy.limits, max_pending_per_user: 4, max_pending_per_client_user: 2 } };
    await swapRevision(store, 'acme', 0, JSON.stringify(own), meta);
    await swapRevision(store, 'acme', 1, null, meta);
    expect(await policies.at('acme', 1)).toStrictEqual({ revision: 1, policy: own, source: 'tenant' });
    expect(await policies.at('acme', 2)).toStrictEqual({ revision: 2, policy: defaultPolicy, source: 'default' });
    const afterFirstReads = reads();
    expect((await policies.forRequest({ tenant: 'acme', policy_revision: 1 })).limits.max_pending_per_user).toBe(4);
    expect(await policies.forRequest({ tenant: 'acme' })).toBe(defaultPolicy);
    expect(reads()).toBe(afterFirstReads);
  });

  it('guesses the revision it last saw current, and learns a new one from the store', async () => {
    const { store, defaultPolicy, policies } = await setUp();
    expect(policies.lastKnown('acme').revision).toBe(0);
    await swapRevision(store, 'acme', 0, JSON.stringify(defaultPolicy), meta);
    expect(policies.lastKnown('acme').revision).toBe(0);
    expect(await policies.revision('acme')).toBe(1);
    await policies.at('acme', 1);
    expect(policies.lastKnown('acme')).toMatchObject({ revision: 1, source: 'tenant' });
    expect(policies.lastKnown('globex').revision).toBe(0);
  });

  it('refuses a revision the store does not hold, or one that no longer validates', async () => {
    const { store, policies } = await setUp();
    await expect(policies.at('acme', 3)).rejects.toThrow(/no policy revision 3/);
    await swapRevision(store, 'acme', 0, JSON.stringify({ version: 1 }), meta);
    await expect(policies.at('acme', 1)).rejects.toThrow(/invalid policy \(tenant acme revision 1\)/);
  });
});
