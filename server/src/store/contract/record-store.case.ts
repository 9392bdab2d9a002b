import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { describeTtl, openHandles, type StoreHarness, T } from './harness.ts';

/**
 * The behaviour every implementation of {@link RecordStore} must show, as one vitest suite.
 * Records: string values, hash records and the compare-and-swap that moves a request. Each test
 * uses its own keys, so implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeRecordStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (RecordStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
    });

    it('time answers the store clock in whole epoch ms, moving forward (the test store runs on this machine)', async () => {
      const before = Date.now();
      const first = await store.time();
      const second = await store.time();
      expect(Number.isSafeInteger(first)).toBe(true);
      expect(Math.abs(first - before)).toBeLessThan(1000);
      expect(second).toBeGreaterThanOrEqual(first);
    });
    it('get returns null for a missing key', async () => {
      expect(await store.get(key('s'))).toBeNull();
    });
    it('set then get returns the value exactly', async () => {
      const k = key('s');
      expect(await store.set(k, 'Zahlung € 49,00 ✓')).toBe(true);
      expect(await store.get(k)).toBe('Zahlung € 49,00 ✓');
      await store.set(k, '');
      expect(await store.get(k)).toBe('');
    });
    it('set with onlyIfAbsent writes only when the key is missing', async () => {
      const k = key('s');
      expect(await store.set(k, 'first', { onlyIfAbsent: true })).toBe(true);
      expect(await store.set(k, 'second', { onlyIfAbsent: true })).toBe(false);
      expect(await store.get(k)).toBe('first');
    });
    describe('replace', () => {
      it('writes only while the key holds the expected value, and never a missing key', async () => {
        const k = key('s');
        expect(await store.replace(k, '', 'v')).toBe(false);
        expect(await store.get(k)).toBeNull();
        await store.set(k, '{"counter":1}');
        expect(await store.replace(k, '{"counter":0}', '{"counter":2}')).toBe(false);
        expect(await store.get(k)).toBe('{"counter":1}');
        expect(await store.replace(k, '{"counter":1}', '{"counter":2}')).toBe(true);
        expect(await store.get(k)).toBe('{"counter":2}');
      });
      it('20 concurrent swaps from one reading have exactly one winner', async () => {
        const k = key('s');
        await store.set(k, 'read');
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => handles[i % handles.length]!.replace(k, 'read', `writer ${i}`)));
        expect(results.filter(Boolean)).toHaveLength(1);
        expect(await store.get(k)).toBe(`writer ${results.indexOf(true)}`);
      });
    });
    it('take returns a value once', async () => {
      const k = key('s');
      await store.set(k, 'nonce');
      expect(await store.take(k)).toBe('nonce');
      expect(await store.take(k)).toBeNull();
      expect(await store.get(k)).toBeNull();
    });
    it('delete removes a key of any kind and answers whether it existed', async () => {
      const [s, h, m, l, z] = [key('s'), key('h'), key('m'), key('l'), key('z')];
      await Promise.all([store.set(s, 'v'), store.hashSet(h, { a: '1' }), store.setAdd(m, 'x'), store.streamAppend(l, { e: '1' }), store.sortedAdd(z, 'x', 1)]);
      for (const k of [s, h, m, l, z]) expect(await store.delete(k)).toBe(true);
      for (const k of [s, h, m, l, z]) expect(await store.delete(k)).toBe(false);
      expect(await store.hashGet(h)).toBeNull();
    });

    it('hashCreate creates a record only when the key is missing', async () => {
      const k = key('h');
      expect(await store.hashCreate(k, { state: 'pending' }, 60)).toBe(true);
      expect(await store.hashCreate(k, { state: 'approved' }, 60)).toBe(false);
      expect(await store.hashGet(k)).toStrictEqual({ state: 'pending' });
    });
    it('hashGet returns null for a missing record', async () => {
      expect(await store.hashGet(key('h'))).toBeNull();
    });
    it('hashSet writes some fields, keeps the others and creates a missing record', async () => {
      const k = key('h');
      await store.hashSet(k, { a: '1', b: '2' });
      await store.hashSet(k, { b: '3', c: '' });
      expect(await store.hashGet(k)).toStrictEqual({ a: '1', b: '3', c: '' });
    });
    it('hashGetField reads one field and hashLength counts them; both answer nothing for a missing record', async () => {
      const k = key('h');
      await store.hashSet(k, { a: '1', b: '' });
      expect([await store.hashGetField(k, 'a'), await store.hashGetField(k, 'b'), await store.hashGetField(k, 'z')]).toStrictEqual(['1', '', null]);
      expect(await store.hashLength(k)).toBe(2);
      expect([await store.hashGetField(key('h'), 'a'), await store.hashLength(key('h'))]).toStrictEqual([null, 0]);
    });
    it('hashDelete removes one field and answers whether it existed', async () => {
      const k = key('h');
      await store.hashSet(k, { a: '1', b: '2' });
      expect(await store.hashDelete(k, 'a')).toBe(true);
      expect(await store.hashDelete(k, 'a')).toBe(false);
      expect(await store.hashGet(k)).toStrictEqual({ b: '2' });
      expect(await store.hashDelete(key('h'), 'a')).toBe(false);
    });
    it('hashDelete of the last field removes the record', async () => {
      const k = key('h');
      await store.hashSet(k, { a: '1' });
      await store.hashDelete(k, 'a');
      expect(await store.hashGet(k)).toBeNull();
    });

    describeTtl(key, harness, [
      ['set with a TTL expires', (k) => store.set(k, 'v', { ttlSeconds: 1 }), async (k) => expect(await store.get(k)).toBeNull()],
      [
        'set without a TTL clears an earlier one',
        async (k) => {
          await store.set(k, 'v', { ttlSeconds: 1 });
          await store.set(k, 'w');
        },
        async (k) => expect(await store.get(k)).toBe('w'),
      ],
      ['set with onlyIfAbsent writes again once the key expired', (k) => store.set(k, 'v', { ttlSeconds: 1, onlyIfAbsent: true }), async (k) => expect(await store.set(k, 'w', { onlyIfAbsent: true })).toBe(true)],
      ['take of an expired value returns null', (k) => store.set(k, 'v', { ttlSeconds: 1 }), async (k) => expect(await store.take(k)).toBeNull()],
      [
        'hashCreate gives the record its TTL, then creates it again',
        (k) => store.hashCreate(k, { a: '1' }, 1),
        async (k) => {
          expect(await store.hashGet(k)).toBeNull();
          expect(await store.hashCreate(k, { a: '2' }, 60)).toBe(true);
        },
      ],
      [
        'hashSet with a TTL resets it',
        async (k) => {
          await store.hashCreate(k, { a: '1' }, 1);
          await store.hashSet(k, { b: '2' }, 60);
        },
        async (k) => expect(await store.hashGet(k)).toStrictEqual({ a: '1', b: '2' }),
      ],
      [
        'hashSet without a TTL keeps it',
        async (k) => {
          await store.hashCreate(k, { a: '1' }, 1);
          await store.hashSet(k, { b: '2' });
        },
        async (k) => expect(await store.hashGet(k)).toBeNull(),
      ],
      [
        'compareAndSet with a TTL resets it',
        async (k) => {
          await store.hashCreate(k, { a: '1' }, 1);
          await store.compareAndSet(k, [], { b: '2' }, { ttlSeconds: 60 });
        },
        async (k) => expect(await store.hashGet(k)).toStrictEqual({ a: '1', b: '2' }),
      ],
      [
        'compareAndSet without a TTL keeps it',
        async (k) => {
          await store.hashCreate(k, { a: '1' }, 1);
          await store.compareAndSet(k, [], { b: '2' });
        },
        async (k) => expect(await store.hashGet(k)).toBeNull(),
      ],
      [
        'replace keeps the TTL',
        async (k) => {
          await store.set(k, 'a', { ttlSeconds: 1 });
          await store.replace(k, 'a', 'b');
        },
        async (k) => expect(await store.get(k)).toBeNull(),
      ],
      [
        'hashThrottle keeps the TTL',
        async (k) => {
          await store.hashCreate(k, { interval: '5' }, 1);
          await store.hashThrottle(k, { nowMs: T, intervalField: 'interval', nextAtField: 'next_poll_at', unitMs: 1000, defaultInterval: 5, earlyIncrement: 5 });
        },
        async (k) => expect(await store.hashGet(k)).toBeNull(),
      ],
    ]);
  });
}
