import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { openHandles, type StoreHarness, T } from './harness.ts';

/**
 * A sliding window of {@link WindowStore} (`windowAdd`) with thousands of live entries, as one vitest
 * suite under the WindowStore contract's title. Each test uses its own keys, so implementations may
 * share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeWindowScaleContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (WindowStore contract)`, () => {
    let store: Store;
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      store = opened[0]!;
    });

    describe('windowAdd', () => {
      const MINUTE = 60_000;
      it('with 5,000 live entries answers exactly, drops the expired ones oldest first, and takes any one back', async () => {
        const k = key('window');
        const size = 5000;
        const big = { windowMs: MINUTE, maxCount: size + 1, maxAmounts: { EUR: 1_000_000_000 } };
        // One entry per 10 ms, each weighing 1 to 7.
        for (let i = 0; i < size; i += 250) {
          for (let j = 0; j < 250; j++) await store.windowAdd(k, { ...big, nowMs: T + (i + j) * 10, member: `e${i + j}`, amounts: { EUR: 1 + ((i + j) % 7) } });
        }
        const weight = (live: (i: number) => boolean) => {
          let [count, total] = [0, 0];
          for (let i = 0; i < size; i += 1) if (live(i)) [count, total] = [count + 1, total + 1 + (i % 7)];
          return { count, total };
        };
        const last = T + (size - 1) * 10;
        const all = weight(() => true);
        // Still within a minute of the first entry (T) at T + 49,990: all 5,000 count.
        expect(await store.windowAdd(k, { ...big, nowMs: last, member: 'over', maxCount: size })).toMatchObject({ ok: false, exceeded: 'count', count: size, totals: { EUR: all.total } });
        expect(await store.windowAdd(k, { ...big, nowMs: last, member: 'over', amounts: { EUR: 1_000_000_000 - all.total + 1 } })).toMatchObject({ ok: false, exceeded: 'amount' });
        // The clock passes the first 1,234 entries: their time + a minute ≤ now.
        const at = T + 1233 * 10 + MINUTE;
        const left = weight((i) => i > 1233);
        expect(left.count).toBe(size - 1234);
        expect(await store.windowAdd(k, { ...big, nowMs: at, member: 'late' })).toStrictEqual({ ok: true, count: left.count + 1, totals: { EUR: left.total } });
        // Exactly the expired ones are gone; one from the middle comes back out, and the totals follow.
        for (const i of [0, 1, 1233]) expect(await store.windowRemove(k, `e${i}`)).toBe(false);
        for (const i of [1234, 2500, 4999]) expect(await store.windowRemove(k, `e${i}`)).toBe(true);
        const rest = weight((i) => i > 1233 && ![2500, 4999, 1234].includes(i));
        expect(await store.windowAdd(k, { ...big, nowMs: at, member: 'late2' })).toStrictEqual({ ok: true, count: rest.count + 2, totals: { EUR: rest.total } });
        // A minute after the newest, the window is empty: the add that finds it so leaves only itself.
        expect(await store.windowAdd(k, { ...big, nowMs: at + MINUTE, member: 'last', maxCount: 1 })).toStrictEqual({ ok: true, count: 1, totals: {} });
        expect(await store.windowRemove(k, 'last')).toBe(true);
        expect(await store.delete(k)).toBe(false);
      });
    });
  });
}
