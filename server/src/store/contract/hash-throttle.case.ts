import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { openHandles, type StoreHarness, T } from './harness.ts';

/**
 * The poll throttle of {@link RecordStore} (`hashThrottle`), as one vitest suite under the
 * RecordStore contract's title. Each test uses its own keys, so implementations may share a server
 * with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeHashThrottleContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (RecordStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
    });

    describe('hashThrottle', () => {
      // The CIBA token endpoint's rule (ciba/poll-throttle.ts): seconds, 5 by default, +5 when early.
      const POLL = { intervalField: 'interval', nextAtField: 'next_poll_at', unitMs: 1000, defaultInterval: 5, earlyIncrement: 5 };
      const throttle = (handle: Store, k: string, nowMs: number, leewayMs?: number) => handle.hashThrottle(k, { ...POLL, nowMs, ...(leewayMs === undefined ? {} : { leewayMs }) });
      const polled = async (fields: Record<string, string> = { interval: '5' }) => {
        const k = key('poll');
        await store.hashCreate(k, fields, 60);
        return k;
      };
      it('is missing for a missing record, and writes nothing', async () => {
        const k = key('poll');
        expect(await throttle(store, k, T)).toStrictEqual({ status: 'missing', fields: null });
        expect(await store.hashGet(k)).toBeNull();
      });
      it('lets the first call through and schedules the next one interval later', async () => {
        const k = await polled({ interval: '5', state: 'pending' });
        expect(await throttle(store, k, T)).toStrictEqual({ status: 'ok', fields: { interval: '5', state: 'pending', next_poll_at: String(T + 5000) } });
      });
      it('takes the default interval when the record has none', async () => {
        const k = await polled({ state: 'pending' });
        expect((await throttle(store, k, T)).fields).toMatchObject({ interval: '5', next_poll_at: String(T + 5000) });
      });
      it('lets a call at the due time through', async () => {
        const k = await polled();
        await throttle(store, k, T);
        expect(await throttle(store, k, T + 5000)).toMatchObject({ status: 'ok', fields: { interval: '5', next_poll_at: String(T + 10_000) } });
      });
      it('answers early to an early call and adds the increment to the interval', async () => {
        const k = await polled();
        await throttle(store, k, T);
        expect(await throttle(store, k, T + 1000)).toMatchObject({ status: 'early', fields: { interval: '10', next_poll_at: String(T + 11_000) } });
      });
      it('lets a call within the leeway through, not one before it', async () => {
        const [inside, before] = [await polled(), await polled()];
        await Promise.all([throttle(store, inside, T), throttle(store, before, T)]);
        expect((await throttle(store, inside, T + 4500, 500)).status).toBe('ok');
        expect((await throttle(store, before, T + 4499, 500)).status).toBe('early');
      });
      it('takes the fields, unit, default and increment from the caller', async () => {
        const k = await polled({ gap: '7' });
        const rule = { intervalField: 'gap', nextAtField: 'due', unitMs: 1, defaultInterval: 0, earlyIncrement: 3 };
        expect(await store.hashThrottle(k, { ...rule, nowMs: T })).toStrictEqual({ status: 'ok', fields: { gap: '7', due: String(T + 7) } });
        expect(await store.hashThrottle(k, { ...rule, nowMs: T + 6 })).toStrictEqual({ status: 'early', fields: { gap: '10', due: String(T + 16) } });
        const none = await polled({ other: 'x' });
        expect(await store.hashThrottle(none, { ...rule, nowMs: T })).toStrictEqual({ status: 'ok', fields: { other: 'x', gap: '0', due: String(T) } });
      });
      it('refuses a rule that is not whole numbers or has no distinct fields, and writes nothing', async () => {
        const k = await polled();
        await expect(store.hashThrottle(k, { ...POLL, nowMs: T, earlyIncrement: 0.5 })).rejects.toThrow(RangeError);
        await expect(store.hashThrottle(k, { ...POLL, nowMs: T, unitMs: 0 })).rejects.toThrow(RangeError);
        await expect(store.hashThrottle(k, { ...POLL, nowMs: -1 })).rejects.toThrow(RangeError);
        await expect(store.hashThrottle(k, { ...POLL, nowMs: T, nextAtField: 'interval' })).rejects.toThrow(RangeError);
        expect(await store.hashGet(k)).toStrictEqual({ interval: '5' });
      });
      it('10 concurrent calls at one instant: one ok, nine early', async () => {
        const k = await polled();
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => throttle(handles[i % handles.length]!, k, T)));
        expect(results.filter((result) => result.status === 'ok')).toHaveLength(1);
        expect(results.filter((result) => result.status === 'early')).toHaveLength(9);
        expect(await store.hashGet(k)).toStrictEqual({ interval: '50', next_poll_at: String(T + 50_000) });
      });
    });
  });
}
