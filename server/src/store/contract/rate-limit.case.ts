import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { openHandles, type StoreHarness, T } from './harness.ts';

/**
 * The GCRA rate limit of {@link WindowStore} (`rateLimit`), as one vitest suite under the
 * WindowStore contract's title. Each test uses its own keys, so implementations may share a server
 * with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeRateLimitContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (WindowStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
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
  });
}
