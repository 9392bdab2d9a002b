import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { openHandles, type StoreHarness, T } from './harness.ts';

/**
 * The counted windows of members of {@link WindowStore} (`sortedWindowAdd`, `sortedWindowMembers`),
 * as one vitest suite under the WindowStore contract's title. Each test uses its own keys, so
 * implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeSortedWindowContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (WindowStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
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
  });
}
