import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/index.ts';
import { keys, MemoryStore, type Store } from '../store/index.ts';
import { createClientCache } from './client-cache.ts';
import type { ClientRecord } from './client-record.ts';

function record(clientId: string, name = 'Agent'): ClientRecord {
  return { client_id: clientId, tenant: 'default', name, token_endpoint_auth_method: 'client_secret_basic', secret_hash: 'x', profile: 'default', token_delivery_mode: 'poll', created_at: 0 };
}

/** A store that counts its `get`s, to see which lookups reached it. */
function countingStore(): { store: Store; gets: () => number } {
  const store = new MemoryStore();
  let gets = 0;
  const get = store.get.bind(store);
  store.get = (key) => {
    gets += 1;
    return get(key);
  };
  return { store, gets: () => gets };
}

describe('createClientCache', () => {
  it('serves a record from memory for the TTL on the injected clock, then reads the store again', async () => {
    const { store, gets } = countingStore();
    const clock = new ManualClock();
    await store.set(keys.client('cli_a'), JSON.stringify(record('cli_a')));
    const cache = createClientCache({ store, clock, ttlMs: 5000 });
    expect(await cache.find('cli_a')).toMatchObject({ client_id: 'cli_a' });
    clock.advance(4.9);
    await store.set(keys.client('cli_a'), JSON.stringify(record('cli_a', 'Renamed')));
    expect((await cache.find('cli_a'))?.name).toBe('Agent');
    expect(gets()).toBe(1);
    clock.advance(0.1);
    expect((await cache.find('cli_a'))?.name).toBe('Renamed');
    expect(gets()).toBe(2);
  });

  it('forgets a client an operator changed: this instance reads it again at once, another within the TTL', async () => {
    const { store, gets } = countingStore();
    const clock = new ManualClock();
    await store.set(keys.client('cli_a'), JSON.stringify(record('cli_a')));
    const [here, elsewhere] = [createClientCache({ store, clock, ttlMs: 5000 }), createClientCache({ store, clock, ttlMs: 5000 })];
    await Promise.all([here.find('cli_a'), elsewhere.find('cli_a')]);
    await store.set(keys.client('cli_a'), JSON.stringify({ ...record('cli_a'), disabled_at: 1 }));
    here.forget('cli_a');
    expect((await here.find('cli_a'))?.disabled_at).toBe(1);
    expect((await elsewhere.find('cli_a'))?.disabled_at).toBeUndefined();
    clock.advance(5);
    expect((await elsewhere.find('cli_a'))?.disabled_at).toBe(1);
    expect(gets()).toBe(4);
  });

  it('never keeps a miss: a client registered after a failed lookup is found at once', async () => {
    const { store, gets } = countingStore();
    const cache = createClientCache({ store, clock: new ManualClock() });
    expect(await cache.find('cli_new')).toBeNull();
    await store.set(keys.client('cli_new'), JSON.stringify(record('cli_new')));
    expect(await cache.find('cli_new')).toMatchObject({ client_id: 'cli_new' });
    expect(gets()).toBe(2);
  });

  it('shares one store read between concurrent lookups of one client', async () => {
    const { store, gets } = countingStore();
    await store.set(keys.client('cli_a'), JSON.stringify(record('cli_a')));
    const cache = createClientCache({ store, clock: new ManualClock() });
    const found = await Promise.all([cache.find('cli_a'), cache.find('cli_a'), cache.find('cli_a')]);
    expect(found.every((client) => client?.client_id === 'cli_a')).toBe(true);
    expect(gets()).toBe(1);
  });

  it('keeps at most maxEntries records, dropping the one read longest ago', async () => {
    const { store, gets } = countingStore();
    for (const id of ['cli_a', 'cli_b', 'cli_c']) await store.set(keys.client(id), JSON.stringify(record(id)));
    const cache = createClientCache({ store, clock: new ManualClock(), maxEntries: 2 });
    await cache.find('cli_a');
    await cache.find('cli_b');
    await cache.find('cli_c');
    expect(gets()).toBe(3);
    await cache.find('cli_c');
    await cache.find('cli_b');
    expect(gets()).toBe(3);
    await cache.find('cli_a');
    expect(gets()).toBe(4);
  });

  it('hands out frozen records, so no request can change what the next one sees', async () => {
    const store = new MemoryStore();
    await store.set(keys.client('cli_a'), JSON.stringify(record('cli_a')));
    const cache = createClientCache({ store, clock: new ManualClock() });
    expect(Object.isFrozen(await cache.find('cli_a'))).toBe(true);
  });
});
