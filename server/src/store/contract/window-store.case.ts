import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { describeTtl, openHandles, type StoreHarness, T } from './harness.ts';

/**
 * The behaviour every implementation of {@link WindowStore} must show, as one vitest suite. Rate
 * windows: the velocity windows with amounts, the counted windows of members, and the GCRA rate
 * limit. Each test uses its own keys, so implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeWindowStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (WindowStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
    });

    describe('windowAdd', () => {
      const MINUTE = 60_000;
      const limits = { windowMs: MINUTE, maxCount: 3, maxAmounts: { EUR: 100_000 } };
      it('adds entries while the count fits and refuses the one over it, adding nothing', async () => {
        const k = key('window');
        for (const [i, member] of ['a', 'b', 'c'].entries()) {
          expect(await store.windowAdd(k, { ...limits, nowMs: T + i, member, amounts: { EUR: 100 } })).toStrictEqual({ ok: true, count: i + 1, totals: { EUR: 100 * (i + 1) } });
        }
        expect(await store.windowAdd(k, { ...limits, nowMs: T + 3, member: 'd', amounts: { EUR: 100 } })).toStrictEqual({ ok: false, count: 3, totals: { EUR: 300 }, exceeded: 'count' });
        expect(await store.windowRemove(k, 'd')).toBe(false);
        for (const member of ['a', 'b', 'c']) expect(await store.windowRemove(k, member)).toBe(true);
      });
      it('totals each currency on its own and refuses an amount over its currency’s limit', async () => {
        const k = key('window');
        expect(await store.windowAdd(k, { ...limits, nowMs: T, member: 'a', amounts: { EUR: 60_000, USD: 900_000 } })).toStrictEqual({ ok: true, count: 1, totals: { EUR: 60_000, USD: 900_000 } });
        expect(await store.windowAdd(k, { ...limits, nowMs: T, member: 'b', amounts: { EUR: 40_001 } })).toStrictEqual({ ok: false, count: 1, totals: { EUR: 60_000, USD: 900_000 }, exceeded: 'amount' });
        expect(await store.windowAdd(k, { ...limits, nowMs: T, member: 'c', amounts: { EUR: 40_000 } })).toMatchObject({ ok: true, count: 2, totals: { EUR: 100_000 } });
        // USD has no limit here: only the count holds it back.
        expect(await store.windowAdd(k, { ...limits, nowMs: T, member: 'd', amounts: { USD: 9_000_000_000 } })).toMatchObject({ ok: true, count: 3, totals: { USD: 9_000_900_000 } });
      });
      it('slides: an entry leaves the window windowMs after its score, not before', async () => {
        const k = key('window');
        for (const member of ['a', 'b', 'c']) await store.windowAdd(k, { ...limits, nowMs: T, member });
        expect((await store.windowAdd(k, { ...limits, nowMs: T + MINUTE - 1, member: 'd' })).ok).toBe(false);
        expect(await store.windowAdd(k, { ...limits, nowMs: T + MINUTE, member: 'd' })).toStrictEqual({ ok: true, count: 1, totals: {} });
        for (const member of ['a', 'b', 'c']) expect(await store.windowRemove(k, member)).toBe(false);
        expect(await store.windowRemove(k, 'd')).toBe(true);
        expect(await store.delete(k)).toBe(false);
      });
      it('windowRemove takes back the newest entry of a member, and only that one', async () => {
        const k = key('window');
        await store.windowAdd(k, { ...limits, nowMs: T, member: 'a', amounts: { EUR: 10 } });
        await store.windowAdd(k, { ...limits, nowMs: T + 1, member: 'b', amounts: { EUR: 20 } });
        expect(await store.windowRemove(k, 'a')).toBe(true);
        expect(await store.windowRemove(k, 'a')).toBe(false);
        expect(await store.windowAdd(k, { ...limits, nowMs: T + 2, member: 'c' })).toStrictEqual({ ok: true, count: 2, totals: { EUR: 20 } });
        // A member is not a key: added twice, it counts twice, and comes back out one entry at a time.
        expect(await store.windowAdd(k, { ...limits, nowMs: T + 3, member: 'c', amounts: { EUR: 5 } })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 25 } });
        expect(await store.windowRemove(k, 'c')).toBe(true);
        expect(await store.windowAdd(k, { ...limits, nowMs: T + 4, member: 'd' })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 20 } });
      });
      it('refuses malformed arguments before writing anything', async () => {
        const k = key('window');
        await expect(store.windowAdd(k, { ...limits, nowMs: T, member: 'a', amounts: { EUR: 1.5 } })).rejects.toThrow(RangeError);
        await expect(store.windowAdd(k, { ...limits, nowMs: T, member: 'a', amounts: { eur: 1 } })).rejects.toThrow(RangeError);
        await expect(store.windowAdd(k, { ...limits, nowMs: T, member: 'a', maxCount: -1 })).rejects.toThrow(RangeError);
        await expect(store.windowAdd(k, { ...limits, nowMs: T, member: '' })).rejects.toThrow(RangeError);
        await expect(store.windowAdd(k, { ...limits, nowMs: T, member: 'x\0y' })).rejects.toThrow(RangeError);
        await expect(store.windowRemove(k, '')).rejects.toThrow(RangeError);
        await expect(store.windowRemove(k, 'y\0')).rejects.toThrow(RangeError);
        expect(await store.delete(k)).toBe(false);
      });
      it('10 concurrent adds on 5 connections at the edge: exactly the allowed number get in', async () => {
        const k = key('window');
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => handles[i % handles.length]!.windowAdd(k, { windowMs: MINUTE, maxCount: 10, maxAmounts: { EUR: 1000 }, nowMs: T, member: `m${i}`, amounts: { EUR: 300 } })));
        expect(results.filter((result) => result.ok)).toHaveLength(3);
        expect(results.filter((result) => result.exceeded === 'amount')).toHaveLength(7);
        const removed = await Promise.all(Array.from({ length: 10 }, (_, i) => store.windowRemove(k, `m${i}`)));
        expect(removed.filter(Boolean)).toHaveLength(3);
        expect(removed.map((taken, i) => taken === results[i]!.ok)).not.toContain(false);
      });
      it('a refused add changes nothing but what left the window, and shows the window as it stands', async () => {
        const k = key('window');
        await store.windowAdd(k, { ...limits, nowMs: T, member: 'a', amounts: { EUR: 60_000 } });
        await store.windowAdd(k, { ...limits, nowMs: T + 30_000, member: 'b', amounts: { EUR: 30_000 } });
        expect(await store.windowAdd(k, { ...limits, nowMs: T + 30_001, member: 'c', amounts: { EUR: 10_001 } })).toStrictEqual({ ok: false, count: 2, totals: { EUR: 90_000 }, exceeded: 'amount' });
        // a left at T + MINUTE; the refusal there still dropped it.
        expect(await store.windowAdd(k, { ...limits, nowMs: T + MINUTE, member: 'c', amounts: { EUR: 70_001 } })).toStrictEqual({ ok: false, count: 1, totals: { EUR: 30_000 }, exceeded: 'amount' });
        expect(await store.windowRemove(k, 'a')).toBe(false);
        expect(await store.windowAdd(k, { ...limits, nowMs: T + MINUTE, member: 'c', amounts: { EUR: 70_000 } })).toStrictEqual({ ok: true, count: 2, totals: { EUR: 100_000 } });
      });
      it('drops a total that falls to 0 or below at once, also past 2^53 where sums are inexact', async () => {
        const k = key('window');
        const max = Number.MAX_SAFE_INTEGER;
        // No limit on JPY: its total may pass 2^53 (inexact), and must still come back to what is left.
        await store.windowAdd(k, { windowMs: MINUTE, maxCount: 10, nowMs: T, member: 'a', amounts: { JPY: max } });
        await store.windowAdd(k, { windowMs: MINUTE, maxCount: 10, nowMs: T + 1, member: 'b', amounts: { JPY: 2 } });
        expect(await store.windowAdd(k, { windowMs: MINUTE, maxCount: 10, nowMs: T + 1 + MINUTE, member: 'c', amounts: { JPY: 5 } })).toStrictEqual({ ok: true, count: 1, totals: { JPY: 5 } });
      });
    });

    describeTtl(key, harness, [
      ['windowAdd keeps a window only as long as its newest entry counts', (k) => store.windowAdd(k, { nowMs: T, windowMs: 1000, member: 'a', maxCount: 1 }), async (k) => expect(await store.delete(k)).toBe(false)],
      ['rateLimit keeps a counter only while its schedule runs ahead of now', (k) => store.rateLimit(k, { nowMs: T, count: 1, windowMs: 1000 }), async (k) => expect(await store.delete(k)).toBe(false)],
    ]);
  });
}
