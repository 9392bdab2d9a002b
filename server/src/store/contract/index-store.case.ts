import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { describeTtl, openHandles, type StoreHarness, T } from './harness.ts';

/**
 * The behaviour every implementation of {@link IndexStore} must show, as one vitest suite. Indexes:
 * sets and sorted sets. Each test uses its own keys, so implementations may share a server with
 * other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeIndexStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (IndexStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
    });

    it('setAdd adds a member once and setMembers lists the members', async () => {
      const k = key('set');
      for (const member of ['a', 'b', 'a']) await store.setAdd(k, member);
      expect((await store.setMembers(k)).sort()).toStrictEqual(['a', 'b']);
      expect(await store.setMembers(key('set'))).toStrictEqual([]);
    });
    it('setRemove removes a member, and the last one the set', async () => {
      const k = key('set');
      await store.setAdd(k, 'a');
      await store.setAdd(k, 'b');
      await store.setRemove(k, 'a');
      await store.setRemove(k, 'missing');
      expect(await store.setMembers(k)).toStrictEqual(['b']);
      await store.setRemove(k, 'b');
      expect(await store.delete(k)).toBe(false);
    });
    describe('sorted set', () => {
      const filled = async (entries: [string, number][]) => {
        const k = key('sorted');
        for (const [member, score] of entries) await store.sortedAdd(k, member, score);
        return k;
      };
      it('sortedRangeByScore answers the members up to maxScore, inclusive, lowest score first', async () => {
        const k = await filled([
          ['late', T + 3000],
          ['first', T + 1000],
          ['due', T + 2000],
          ['later', T + 4000],
        ]);
        expect(await store.sortedRangeByScore(k, T + 3000, 10)).toStrictEqual(['first', 'due', 'late']);
        expect(await store.sortedRangeByScore(k, T + 999, 10)).toStrictEqual([]);
      });
      it('orders members of equal score by their bytes', async () => {
        const k = await filled([
          ['default:b', T],
          ['acme:z', T],
          ['default:a', T],
          ['acme:a', T - 1],
        ]);
        expect(await store.sortedRangeByScore(k, T, 10)).toStrictEqual(['acme:a', 'acme:z', 'default:a', 'default:b']);
      });
      it('sortedRangeAfter pages through members of score 0 in byte order, strictly after the cursor', async () => {
        const k = await filled([
          ['bob', 0],
          ['alice', 0],
          ['carol', 0],
          ['dave', 0],
        ]);
        expect(await store.sortedRangeAfter(k, null, 2)).toStrictEqual(['alice', 'bob']);
        expect(await store.sortedRangeAfter(k, 'bob', 2)).toStrictEqual(['carol', 'dave']);
        // A cursor that is no longer a member still pages on from where it would sort.
        expect(await store.sortedRangeAfter(k, 'b', 10)).toStrictEqual(['bob', 'carol', 'dave']);
        expect(await store.sortedRangeAfter(k, 'dave', 2)).toStrictEqual([]);
        expect(await store.sortedRangeAfter(key('none'), null, 2)).toStrictEqual([]);
      });
      it('limit answers only the lowest scores', async () => {
        const k = await filled(Array.from({ length: 20 }, (_, i): [string, number] => [`m${String(i).padStart(2, '0')}`, T + (19 - i)]));
        expect(await store.sortedRangeByScore(k, T + 100, 3)).toStrictEqual(['m19', 'm18', 'm17']);
      });
      it('compares scores as numbers: negatives, fractions and infinite bounds', async () => {
        const k = await filled([
          ['ten', 10],
          ['nine', 9],
          ['minus', -2.5],
          ['half', 0.5],
        ]);
        expect(await store.sortedRangeByScore(k, 9.5, 10)).toStrictEqual(['minus', 'half', 'nine']);
        expect(await store.sortedRangeByScore(k, Number.POSITIVE_INFINITY, 10)).toStrictEqual(['minus', 'half', 'nine', 'ten']);
        expect(await store.sortedRangeByScore(k, Number.NEGATIVE_INFINITY, 10)).toStrictEqual([]);
      });
      it('sortedAdd of a present member moves it to the new score', async () => {
        const k = await filled([
          ['a', T + 1000],
          ['b', T + 2000],
        ]);
        await store.sortedAdd(k, 'a', T + 3000);
        expect(await store.sortedRangeByScore(k, T + 2000, 10)).toStrictEqual(['b']);
        expect(await store.sortedRangeByScore(k, T + 3000, 10)).toStrictEqual(['b', 'a']);
      });
      it('sortedRemove removes a member and answers whether it was there; the last one removes the set', async () => {
        const k = await filled([
          ['a', 1],
          ['b', 2],
        ]);
        expect(await store.sortedRemove(k, 'a')).toBe(true);
        expect(await store.sortedRemove(k, 'a')).toBe(false);
        expect(await store.sortedRemove(k, 'missing')).toBe(false);
        expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual(['b']);
        expect(await store.sortedRemove(k, 'b')).toBe(true);
        expect(await store.delete(k)).toBe(false);
      });
      it('a missing sorted set has no members and nothing to remove', async () => {
        expect(await store.sortedRangeByScore(key('sorted'), Number.POSITIVE_INFINITY, 10)).toStrictEqual([]);
        expect(await store.sortedRemove(key('sorted'), 'a')).toBe(false);
      });
      it('refuses a NaN score and a limit that is not a positive whole number', async () => {
        const k = key('sorted');
        await expect(store.sortedAdd(k, 'a', Number.NaN)).rejects.toThrow(RangeError);
        for (const limit of [0, -1, 1.5]) await expect(store.sortedRangeByScore(k, 1, limit)).rejects.toThrow(RangeError);
        await expect(store.sortedRangeByScore(k, Number.NaN, 1)).rejects.toThrow(RangeError);
      });
      it('removing one member from 10 connections at once: exactly one call removes it', async () => {
        const k = await filled([['due', T]]);
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => handles[i % handles.length]!.sortedRemove(k, 'due')));
        expect(results.filter(Boolean)).toHaveLength(1);
      });
    });

    describeTtl(key, harness, [
      ['setAdd with a TTL sets it', (k) => store.setAdd(k, 'a', 1), async (k) => expect(await store.setMembers(k)).toStrictEqual([])],
      [
        'setAdd with a TTL resets it',
        async (k) => {
          await store.setAdd(k, 'a', 1);
          await store.setAdd(k, 'b', 60);
        },
        async (k) => expect((await store.setMembers(k)).sort()).toStrictEqual(['a', 'b']),
      ],
      [
        'setAdd without a TTL keeps it',
        async (k) => {
          await store.setAdd(k, 'a', 1);
          await store.setAdd(k, 'b');
        },
        async (k) => expect(await store.setMembers(k)).toStrictEqual([]),
      ],
      ['sortedAdd with a TTL sets it', (k) => store.sortedAdd(k, 'a', 1, 1), async (k) => expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual([])],
      [
        'sortedAdd with a TTL resets it',
        async (k) => {
          await store.sortedAdd(k, 'a', 1, 1);
          await store.sortedAdd(k, 'b', 2, 60);
        },
        async (k) => expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual(['a', 'b']),
      ],
      [
        'sortedAdd without a TTL keeps it',
        async (k) => {
          await store.sortedAdd(k, 'a', 1, 1);
          await store.sortedAdd(k, 'b', 2);
        },
        async (k) => expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual([]),
      ],
    ]);
  });
}
