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

    describe('sortedWindowAdd', () => {
      const MINUTE = 60_000;
      it('adds members while the count fits, refuses the one over it, and lists the members by score', async () => {
        const k = key('swindow');
        for (const [i, member] of ['b', 'a', 'c'].entries()) {
          expect(await store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 3, nowMs: T + i, member })).toStrictEqual({ ok: true, count: i + 1 });
        }
        expect(await store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 3, nowMs: T + 3, member: 'd' })).toStrictEqual({ ok: false, count: 3 });
        expect(await store.sortedWindowMembers(k, T + 3, MINUTE)).toStrictEqual(['b', 'a', 'c']);
        expect(await store.sortedRemove(k, 'd')).toBe(false);
        expect(await store.sortedRemove(k, 'a')).toBe(true);
        expect(await store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 3, nowMs: T + 4, member: 'd' })).toStrictEqual({ ok: true, count: 3 });
      });
      it('slides: a member leaves windowMs after its score, not before, and the reads agree', async () => {
        const k = key('swindow');
        for (const member of ['a', 'b']) await store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 2, nowMs: T, member });
        expect(await store.sortedWindowMembers(k, T + MINUTE - 1, MINUTE)).toStrictEqual(['a', 'b']);
        expect(await store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 2, nowMs: T + MINUTE - 1, member: 'c' })).toStrictEqual({ ok: false, count: 2 });
        expect(await store.sortedWindowMembers(k, T + MINUTE, MINUTE)).toStrictEqual([]);
        expect(await store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 2, nowMs: T + MINUTE, member: 'c' })).toStrictEqual({ ok: true, count: 1 });
        // What left the window was dropped by that add.
        expect(await store.sortedRemove(k, 'a')).toBe(false);
        expect(await store.sortedRemove(k, 'c')).toBe(true);
        expect(await store.delete(k)).toBe(false);
      });
      it('counts a member scored at a future deadline with windowMs 0 until that deadline', async () => {
        const k = key('swindow');
        const pending = { windowMs: 0, maxCount: 1 };
        expect((await store.sortedWindowAdd(k, { ...pending, nowMs: T, member: 'a', score: T + 300_000 })).ok).toBe(true);
        expect(await store.sortedWindowAdd(k, { ...pending, nowMs: T + 299_999, member: 'b', score: T + 600_000 })).toStrictEqual({ ok: false, count: 1 });
        expect(await store.sortedWindowMembers(k, T + 299_999, 0)).toStrictEqual(['a']);
        expect(await store.sortedWindowAdd(k, { ...pending, nowMs: T + 300_000, member: 'b', score: T + 600_000 })).toStrictEqual({ ok: true, count: 1 });
        expect(await store.sortedWindowMembers(k, T + 300_000, 0)).toStrictEqual(['b']);
      });
      it('scores a member that is there again without counting it twice, even when the window is full', async () => {
        const k = key('swindow');
        // Deadlines minutes ahead: the key lives until the last one, on Redis's real clock.
        await store.sortedWindowAdd(k, { windowMs: 0, maxCount: 2, nowMs: T, member: 'a', score: T + 100_000 });
        await store.sortedWindowAdd(k, { windowMs: 0, maxCount: 2, nowMs: T, member: 'b', score: T + 200_000 });
        expect(await store.sortedWindowAdd(k, { windowMs: 0, maxCount: 2, nowMs: T, member: 'a', score: T + 300_000 })).toStrictEqual({ ok: true, count: 2 });
        expect(await store.sortedWindowMembers(k, T, 0)).toStrictEqual(['b', 'a']);
        expect(await store.sortedWindowMembers(k, T + 200_000, 0)).toStrictEqual(['a']);
      });
      it('refuses malformed arguments before writing anything', async () => {
        const k = key('swindow');
        await expect(store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: -1, nowMs: T, member: 'a' })).rejects.toThrow(RangeError);
        await expect(store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 1, nowMs: T, member: '' })).rejects.toThrow(RangeError);
        await expect(store.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 1, nowMs: T, member: 'a', score: 1.5 })).rejects.toThrow(RangeError);
        await expect(store.sortedWindowMembers(k, Number.NaN, 0)).rejects.toThrow(RangeError);
        expect(await store.delete(k)).toBe(false);
      });
      it('10 concurrent adds on 5 connections at the edge: exactly the allowed number get in', async () => {
        const k = key('swindow');
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => handles[i % handles.length]!.sortedWindowAdd(k, { windowMs: MINUTE, maxCount: 4, nowMs: T, member: `m${i}` })));
        expect(results.filter((result) => result.ok)).toHaveLength(4);
        const members = await store.sortedWindowMembers(k, T, MINUTE);
        expect(members.sort()).toStrictEqual(results.flatMap((result, i) => (result.ok ? [`m${i}`] : [])).sort());
      });
    });

    describe('rateLimit', () => {
      const MINUTE = 60_000;
      const rate = { count: 3, windowMs: MINUTE };
      it('lets count calls through at once, then refuses the next with the ms until one fits', async () => {
        const k = key('rate');
        for (let i = 0; i < 3; i++) expect(await store.rateLimit(k, { ...rate, nowMs: T })).toStrictEqual({ ok: true, retryAfterMs: 0 });
        expect(await store.rateLimit(k, { ...rate, nowMs: T })).toStrictEqual({ ok: false, retryAfterMs: 20_000 });
        expect(await store.rateLimit(k, { ...rate, nowMs: T + 5_000 })).toStrictEqual({ ok: false, retryAfterMs: 15_000 });
      });
      it('lets one more through each windowMs / count, not before, and the whole burst after an idle window', async () => {
        const k = key('rate');
        for (let i = 0; i < 3; i++) await store.rateLimit(k, { ...rate, nowMs: T });
        expect(await store.rateLimit(k, { ...rate, nowMs: T + 19_999 })).toStrictEqual({ ok: false, retryAfterMs: 1 });
        expect((await store.rateLimit(k, { ...rate, nowMs: T + 20_000 })).ok).toBe(true);
        expect((await store.rateLimit(k, { ...rate, nowMs: T + 20_000 })).ok).toBe(false);
        const later = T + 20_000 + MINUTE;
        for (let i = 0; i < 3; i++) expect((await store.rateLimit(k, { ...rate, nowMs: later })).ok).toBe(true);
        expect((await store.rateLimit(k, { ...rate, nowMs: later })).ok).toBe(false);
      });
      it('rounds the step up, so a burst is count calls even when windowMs / count is not whole', async () => {
        const k = key('rate');
        const odd = { count: 7, windowMs: MINUTE, nowMs: T };
        const results = [];
        for (let i = 0; i < 8; i++) results.push((await store.rateLimit(k, odd)).ok);
        expect(results).toStrictEqual([true, true, true, true, true, true, true, false]);
      });
      it('peek answers whether a call would fit and counts nothing', async () => {
        const k = key('rate');
        for (let i = 0; i < 5; i++) expect(await store.rateLimit(k, { ...rate, nowMs: T, peek: true })).toStrictEqual({ ok: true, retryAfterMs: 0 });
        expect(await store.delete(k)).toBe(false);
        for (let i = 0; i < 3; i++) expect((await store.rateLimit(k, { ...rate, nowMs: T })).ok).toBe(true);
        expect(await store.rateLimit(k, { ...rate, nowMs: T, peek: true })).toStrictEqual({ ok: false, retryAfterMs: 20_000 });
        expect(await store.rateLimit(k, { ...rate, nowMs: T + 20_000, peek: true })).toStrictEqual({ ok: true, retryAfterMs: 0 });
        expect((await store.rateLimit(k, { ...rate, nowMs: T + 20_000 })).ok).toBe(true);
      });
      it('keeps one counter per key', async () => {
        const [a, b] = [key('rate'), key('rate')];
        for (let i = 0; i < 3; i++) await store.rateLimit(a, { ...rate, nowMs: T });
        expect((await store.rateLimit(a, { ...rate, nowMs: T })).ok).toBe(false);
        expect((await store.rateLimit(b, { ...rate, nowMs: T })).ok).toBe(true);
      });
      it('refuses malformed arguments before writing anything', async () => {
        const k = key('rate');
        await expect(store.rateLimit(k, { count: 0, windowMs: MINUTE, nowMs: T })).rejects.toThrow(RangeError);
        await expect(store.rateLimit(k, { count: 1, windowMs: 0, nowMs: T })).rejects.toThrow(RangeError);
        await expect(store.rateLimit(k, { count: 1.5, windowMs: MINUTE, nowMs: T })).rejects.toThrow(RangeError);
        await expect(store.rateLimit(k, { count: 1, windowMs: MINUTE, nowMs: Number.NaN })).rejects.toThrow(RangeError);
        expect(await store.delete(k)).toBe(false);
      });
      it('20 concurrent calls on 5 connections: exactly count get through', async () => {
        const k = key('rate');
        const results = await Promise.all(Array.from({ length: 20 }, (_, i) => handles[i % handles.length]!.rateLimit(k, { count: 6, windowMs: MINUTE, nowMs: T })));
        expect(results.filter((result) => result.ok)).toHaveLength(6);
        expect(results.filter((result) => !result.ok).map((result) => result.retryAfterMs)).toStrictEqual(Array.from({ length: 14 }, () => 10_000));
      });
    });

    describeTtl(key, harness, [
      ['windowAdd keeps a window only as long as its newest entry counts', (k) => store.windowAdd(k, { nowMs: T, windowMs: 1000, member: 'a', maxCount: 1 }), async (k) => expect(await store.delete(k)).toBe(false)],
      ['rateLimit keeps a counter only while its schedule runs ahead of now', (k) => store.rateLimit(k, { nowMs: T, count: 1, windowMs: 1000 }), async (k) => expect(await store.delete(k)).toBe(false)],
    ]);
  });
}
