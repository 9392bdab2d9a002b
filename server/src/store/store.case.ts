import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from './keys.ts';
import type { Guard, Store } from './types.ts';

/** How the contract suite drives one {@link Store} implementation. */
export interface StoreHarness {
  /** Lets `ms` milliseconds of store time pass: advance an injected clock, or really wait. */
  elapse(ms: number): Promise<void>;
  /**
   * Another handle on the same data (Redis: another connection with the same prefix), so the
   * races run across connections. Leave out when the store is the only handle (memory).
   */
  connectPeer?: () => Promise<Store>;
}

const T = 1_700_000_000_000;
const APPROVED: Guard = { field: 'state', op: 'eq', value: 'approved' };
const RECORD = { state: 'approved', count: '10', empty: '' };

/** [behaviour, guard, holds on RECORD] */
const GUARD_CASES: [string, Guard, boolean][] = [
  ['eq holds on an equal value', APPROVED, true],
  ['eq fails on another value', { field: 'state', op: 'eq', value: 'denied' }, false],
  ['eq holds on an empty field equal to ""', { field: 'empty', op: 'eq', value: '' }, true],
  ['ne holds on another value', { field: 'state', op: 'ne', value: 'denied' }, true],
  ['ne fails on an equal value', { field: 'state', op: 'ne', value: 'approved' }, false],
  ['lt compares numbers, not strings', { field: 'count', op: 'lt', value: 11 }, true],
  ['lt fails on an equal number', { field: 'count', op: 'lt', value: 10 }, false],
  ['gt compares numbers, not strings', { field: 'count', op: 'gt', value: 9 }, true],
  ['gt fails on an equal number', { field: 'count', op: 'gt', value: 10 }, false],
  ['present holds on an empty field', { field: 'empty', op: 'present' }, true],
  ['absent fails on a present field', { field: 'state', op: 'absent' }, false],
  ['absent holds on a missing field', { field: 'nope', op: 'absent' }, true],
];

/** Field strings that are, and are not, plain decimals: only the former compare as numbers. */
const DECIMALS: [string, number][] = [['0', 0], ['7', 7], ['-2.5', -2.5], ['1700000000000', 1700000000000]];
const NOT_DECIMALS = ['', ' 7 ', '0x10', '1e3', '.5', '5.', '+3', 'abc', '12abc', 'Infinity', 'NaN'];

/**
 * The behaviour every {@link Store} must show (DESIGN.md "Storage"), as one vitest suite. Each
 * test uses its own keys, so implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite; the store is closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (Store contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;

    beforeAll(async () => {
      store = await makeStore();
      const peers = harness.connectPeer ? await Promise.all([1, 2, 3, 4].map(() => harness.connectPeer!())) : [];
      handles = [store, ...peers];
    });
    afterAll(async () => {
      await Promise.all(handles.map((handle) => handle.close()));
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

    describe('compareAndSet', () => {
      it('fails on a missing record with fields null and failedGuard -1', async () => {
        expect(await store.compareAndSet(key('h'), [], { a: '1' })).toStrictEqual({ ok: false, fields: null, failedGuard: -1 });
        expect(await store.compareAndSet(key('h'), [{ field: 'a', op: 'absent' }], { a: '1' })).toMatchObject({ failedGuard: -1 });
      });
      it('writes when every guard holds and returns the record after the write', async () => {
        const k = key('h');
        await store.hashCreate(k, RECORD, 60);
        const result = await store.compareAndSet(k, [APPROVED, { field: 'count', op: 'gt', value: 0 }], { state: 'redeemed', by: 'c1' });
        expect(result).toStrictEqual({ ok: true, fields: { ...RECORD, state: 'redeemed', by: 'c1' } });
        expect(await store.hashGet(k)).toStrictEqual(result.fields);
      });
      it('with no guards writes any existing record', async () => {
        const k = key('h');
        await store.hashCreate(k, { a: '1' }, 60);
        expect(await store.compareAndSet(k, [], { b: '2' })).toStrictEqual({ ok: true, fields: { a: '1', b: '2' } });
      });
      it('reports the first failing guard, returns the record and writes nothing', async () => {
        const k = key('h');
        await store.hashCreate(k, RECORD, 60);
        const guards: Guard[] = [{ field: 'state', op: 'present' }, { field: 'state', op: 'eq', value: 'denied' }, { field: 'state', op: 'absent' }];
        expect(await store.compareAndSet(k, guards, { state: 'x' })).toStrictEqual({ ok: false, fields: RECORD, failedGuard: 1 });
        expect(await store.hashGet(k)).toStrictEqual(RECORD);
      });
      it.each(GUARD_CASES)('guard: %s', async (_, guard, holds) => {
        const k = key('h');
        await store.hashCreate(k, RECORD, 60);
        const result = await store.compareAndSet(k, [guard], { touched: '1' });
        if (holds) expect(result).toStrictEqual({ ok: true, fields: { ...RECORD, touched: '1' } });
        else expect(result).toStrictEqual({ ok: false, fields: RECORD, failedGuard: 0 });
      });
      it('a missing field fails every guard but absent', async () => {
        const k = key('h');
        await store.hashCreate(k, RECORD, 60);
        const guards: Guard[] = [
          { field: 'nope', op: 'eq', value: '' },
          { field: 'nope', op: 'ne', value: 'x' },
          { field: 'nope', op: 'lt', value: Number.POSITIVE_INFINITY },
          { field: 'nope', op: 'gt', value: Number.NEGATIVE_INFINITY },
          { field: 'nope', op: 'present' },
        ];
        for (const guard of guards) expect((await store.compareAndSet(k, [guard], { x: '1' })).ok, guard.op).toBe(false);
        expect((await store.compareAndSet(k, [{ field: 'nope', op: 'absent' }], {})).ok).toBe(true);
      });
      it('lt and gt read only plain decimals as numbers; anything else fails them', async () => {
        const k = key('h');
        await store.hashCreate(k, { id: 'x' }, 60);
        const wrong: string[] = [];
        const cases: [string, number | null][] = [...DECIMALS, ...NOT_DECIMALS.map((value): [string, null] => [value, null])];
        for (const [value, number] of cases) {
          await store.hashSet(k, { n: value });
          for (const [op, limit] of [['lt', 6], ['gt', 6], ['lt', 0], ['gt', 0]] as const) {
            const expected = number !== null && (op === 'lt' ? number < limit : number > limit);
            const { ok } = await store.compareAndSet(k, [{ field: 'n', op, value: limit }], {});
            if (ok !== expected) wrong.push(`${JSON.stringify(value)} ${op} ${limit}`);
          }
        }
        expect(wrong).toStrictEqual([]);
      });
      it('50 concurrent redeems of one approved record have exactly one winner', async () => {
        const k = keys.request('contract', randomUUID());
        await store.hashCreate(k, { state: 'approved' }, 60);
        const results = await Promise.all(
          Array.from({ length: 50 }, (_, i) =>
            handles[i % handles.length]!.compareAndSet(k, [APPROVED], { state: 'redeemed', redemption_id: `rdm_${i}` }),
          ),
        );
        const winners = results.filter((result) => result.ok);
        expect(winners).toHaveLength(1);
        const redeemed = { state: 'redeemed', redemption_id: winners[0]!.fields!.redemption_id! };
        for (const loser of results.filter((result) => !result.ok)) {
          expect(loser).toStrictEqual({ ok: false, fields: redeemed, failedGuard: 0 });
        }
        expect(await store.hashGet(k)).toStrictEqual(redeemed);
      });
    });

    describe('pollThrottle', () => {
      const polled = async (fields: Record<string, string> = { interval: '5' }) => {
        const k = key('poll');
        await store.hashCreate(k, fields, 60);
        return k;
      };
      it('is missing for a missing record', async () => {
        expect(await store.pollThrottle(key('poll'), T)).toStrictEqual({ status: 'missing', fields: null });
      });
      it('lets the first poll through and schedules the next one interval later', async () => {
        const k = await polled({ interval: '5', state: 'pending' });
        expect(await store.pollThrottle(k, T)).toStrictEqual({ status: 'ok', fields: { interval: '5', state: 'pending', next_poll_at: String(T + 5000) } });
      });
      it('takes an interval of 5 s when the record has none', async () => {
        const k = await polled({ state: 'pending' });
        expect((await store.pollThrottle(k, T)).fields).toMatchObject({ interval: '5', next_poll_at: String(T + 5000) });
      });
      it('lets a poll at next_poll_at through', async () => {
        const k = await polled();
        await store.pollThrottle(k, T);
        expect(await store.pollThrottle(k, T + 5000)).toMatchObject({ status: 'ok', fields: { interval: '5', next_poll_at: String(T + 10_000) } });
      });
      it('answers slow_down to an early poll and adds 5 s to interval', async () => {
        const k = await polled();
        await store.pollThrottle(k, T);
        expect(await store.pollThrottle(k, T + 1000)).toMatchObject({ status: 'slow_down', fields: { interval: '10', next_poll_at: String(T + 11_000) } });
      });
      it('lets a poll within the leeway through, not one before it', async () => {
        const [inside, before] = [await polled(), await polled()];
        await Promise.all([store.pollThrottle(inside, T), store.pollThrottle(before, T)]);
        expect((await store.pollThrottle(inside, T + 4500, 500)).status).toBe('ok');
        expect((await store.pollThrottle(before, T + 4499, 500)).status).toBe('slow_down');
      });
      it('10 concurrent polls at one instant: one ok, nine slow_down', async () => {
        const k = await polled();
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => handles[i % handles.length]!.pollThrottle(k, T)));
        expect(results.filter((result) => result.status === 'ok')).toHaveLength(1);
        expect(results.filter((result) => result.status === 'slow_down')).toHaveLength(9);
        expect(await store.hashGet(k)).toStrictEqual({ interval: '50', next_poll_at: String(T + 50_000) });
      });
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
        const k = await filled([['late', T + 3000], ['first', T + 1000], ['due', T + 2000], ['later', T + 4000]]);
        expect(await store.sortedRangeByScore(k, T + 3000, 10)).toStrictEqual(['first', 'due', 'late']);
        expect(await store.sortedRangeByScore(k, T + 999, 10)).toStrictEqual([]);
      });
      it('orders members of equal score by their bytes', async () => {
        const k = await filled([['default:b', T], ['acme:z', T], ['default:a', T], ['acme:a', T - 1]]);
        expect(await store.sortedRangeByScore(k, T, 10)).toStrictEqual(['acme:a', 'acme:z', 'default:a', 'default:b']);
      });
      it('limit answers only the lowest scores', async () => {
        const k = await filled(Array.from({ length: 20 }, (_, i): [string, number] => [`m${String(i).padStart(2, '0')}`, T + (19 - i)]));
        expect(await store.sortedRangeByScore(k, T + 100, 3)).toStrictEqual(['m19', 'm18', 'm17']);
      });
      it('compares scores as numbers: negatives, fractions and infinite bounds', async () => {
        const k = await filled([['ten', 10], ['nine', 9], ['minus', -2.5], ['half', 0.5]]);
        expect(await store.sortedRangeByScore(k, 9.5, 10)).toStrictEqual(['minus', 'half', 'nine']);
        expect(await store.sortedRangeByScore(k, Number.POSITIVE_INFINITY, 10)).toStrictEqual(['minus', 'half', 'nine', 'ten']);
        expect(await store.sortedRangeByScore(k, Number.NEGATIVE_INFINITY, 10)).toStrictEqual([]);
      });
      it('sortedAdd of a present member moves it to the new score', async () => {
        const k = await filled([['a', T + 1000], ['b', T + 2000]]);
        await store.sortedAdd(k, 'a', T + 3000);
        expect(await store.sortedRangeByScore(k, T + 2000, 10)).toStrictEqual(['b']);
        expect(await store.sortedRangeByScore(k, T + 3000, 10)).toStrictEqual(['b', 'a']);
      });
      it('sortedRemove removes a member and answers whether it was there; the last one removes the set', async () => {
        const k = await filled([['a', 1], ['b', 2]]);
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

    describe('stream', () => {
      /** Compares two stream ids `<ms>-<seq>` as numbers. */
      const idOrder = (a: string, b: string) => {
        const [am, as] = a.split('-').map(Number) as [number, number];
        const [bm, bs] = b.split('-').map(Number) as [number, number];
        return am - bm || as - bs;
      };
      it('streamAppend answers increasing ids and streamRange returns the entries oldest first, fields exactly', async () => {
        const k = key('stream');
        const ids = [];
        for (const n of ['1', '2', '3']) ids.push(await store.streamAppend(k, { n, text: 'Zahlung € 49,00 ✓', empty: '' }));
        for (const id of ids) expect(id).toMatch(/^\d+-\d+$/);
        expect([...ids].sort(idOrder)).toStrictEqual(ids);
        expect(new Set(ids).size).toBe(3);
        expect(await store.streamRange(k)).toStrictEqual(ids.map((id, i) => ({ id, fields: { n: String(i + 1), text: 'Zahlung € 49,00 ✓', empty: '' } })));
      });
      it('streamRange after an id is exclusive, count limits a page, and a missing stream is empty', async () => {
        const k = key('stream');
        const ids = [];
        for (let i = 0; i < 5; i++) ids.push(await store.streamAppend(k, { i: String(i) }));
        expect((await store.streamRange(k, ids[1])).map((entry) => entry.id)).toStrictEqual(ids.slice(2));
        expect((await store.streamRange(k, ids[1], 2)).map((entry) => entry.fields.i)).toStrictEqual(['2', '3']);
        expect(await store.streamRange(k, ids[4])).toStrictEqual([]);
        expect(await store.streamRange(key('stream'))).toStrictEqual([]);
        await expect(store.streamRange(k, undefined, 0)).rejects.toThrow(RangeError);
      });
      it('streamAppendManyAfter of one entry appends only while the newest entry is the one named, and otherwise answers the newest', async () => {
        const k = key('stream');
        const first = await store.streamAppendManyAfter(k, null, [{ n: '1' }]);
        if (!first.ok) throw new Error('the first append after null must succeed');
        expect(await store.streamAppendManyAfter(k, null, [{ n: 'x' }])).toStrictEqual({ ok: false, last: { id: first.ids[0], fields: { n: '1' } } });
        const second = await store.streamAppendManyAfter(k, first.ids[0]!, [{ n: '2' }]);
        if (!second.ok) throw new Error('an append after the newest id must succeed');
        expect(await store.streamAppendManyAfter(k, first.ids[0]!, [{ n: 'y' }])).toStrictEqual({ ok: false, last: { id: second.ids[0], fields: { n: '2' } } });
        expect(await store.streamAppendManyAfter(key('stream'), '1-0', [{ n: 'z' }])).toStrictEqual({ ok: false, last: null });
        expect((await store.streamRange(k)).map((entry) => entry.fields.n)).toStrictEqual(['1', '2']);
      });
      it('streamAppendManyAfter appends a whole batch in order after the newest entry named, or nothing and answers the newest', async () => {
        const k = key('stream');
        const first = await store.streamAppendManyAfter(k, null, [{ n: '1' }, { n: '2', text: 'Zahlung € 49,00 ✓', empty: '' }]);
        if (!first.ok) throw new Error('the first batch after null must succeed');
        expect(first.ids).toHaveLength(2);
        expect(idOrder(first.ids[0]!, first.ids[1]!)).toBeLessThan(0);
        // The guard fails: nothing of the batch is written, and the newest entry comes back.
        expect(await store.streamAppendManyAfter(k, null, [{ n: 'x' }, { n: 'y' }])).toStrictEqual({ ok: false, last: { id: first.ids[1], fields: { n: '2', text: 'Zahlung € 49,00 ✓', empty: '' } } });
        expect(await store.streamAppendManyAfter(k, first.ids[0]!, [{ n: 'x' }])).toStrictEqual({ ok: false, last: { id: first.ids[1], fields: { n: '2', text: 'Zahlung € 49,00 ✓', empty: '' } } });
        const second = await store.streamAppendManyAfter(k, first.ids[1]!, [{ n: '3' }, { n: '4' }, { n: '5' }]);
        if (!second.ok) throw new Error('a batch after the newest id must succeed');
        const single = await store.streamAppendManyAfter(k, second.ids[2]!, [{ n: '6' }]);
        if (!single.ok) throw new Error('an append links to the last entry of a batch');
        expect(await store.streamAppendManyAfter(key('stream'), '1-0', [{ n: 'z' }])).toStrictEqual({ ok: false, last: null });
        const entries = await store.streamRange(k);
        expect(entries.map((entry) => entry.fields.n)).toStrictEqual(['1', '2', '3', '4', '5', '6']);
        expect(entries.map((entry) => entry.id)).toStrictEqual([...first.ids, ...second.ids, ...single.ids]);
        await expect(store.streamAppendManyAfter(k, single.ids[0]!, [])).rejects.toThrow(RangeError);
        await expect(store.streamAppendManyAfter(k, single.ids[0]!, [{ n: '7' }, {}])).rejects.toThrow(RangeError);
        expect(await store.streamRange(k)).toHaveLength(6);
      });
      it('streamAppendManyAfter appends each indexed entry’s id to its index in the same step, and streamGet reads entries by id', async () => {
        const tag = `{${randomUUID()}}`;
        const [k, a, b] = [`chain:${tag}`, `idx:${tag}:a`, `idx:${tag}:b`];
        const first = await store.streamAppendManyAfter(k, null, [{ n: '1' }, { n: '2' }, { n: '3' }], [{ key: a, ttlSeconds: 1 }, null, { key: a, ttlSeconds: 60 }]);
        if (!first.ok) throw new Error('the first batch after null must succeed');
        expect(await store.streamIndexRead(a)).toStrictEqual([first.ids[0], first.ids[2]]);
        // A lost race writes no index either.
        expect(await store.streamAppendManyAfter(k, null, [{ n: 'x' }], [{ key: b, ttlSeconds: 60 }])).toMatchObject({ ok: false });
        expect(await store.streamIndexRead(b)).toStrictEqual([]);
        const second = await store.streamAppendManyAfter(k, first.ids[2]!, [{ n: '4' }, { n: '5' }], [{ key: b, ttlSeconds: 60 }, { key: a, ttlSeconds: 60 }]);
        if (!second.ok) throw new Error('a batch after the newest id must succeed');
        expect(await store.streamIndexRead(a)).toStrictEqual([first.ids[0], first.ids[2], second.ids[1]]);
        expect(await store.streamIndexRead(b)).toStrictEqual([second.ids[0]]);
        expect(await store.streamGet(k, [second.ids[1]!, first.ids[1]!, '1-0'])).toStrictEqual([
          { id: second.ids[1], fields: { n: '5' } },
          { id: first.ids[1], fields: { n: '2' } },
          null,
        ]);
        expect(await store.streamGet(`chain:{${randomUUID()}}`, [first.ids[0]!])).toStrictEqual([null]);
        await expect(store.streamGet(k, ['nope'])).rejects.toThrow(TypeError);
      });
      it('streamAppendManyAfter refuses an index outside the stream key’s hash tag, and writes nothing', async () => {
        const tag = `{${randomUUID()}}`;
        const k = `chain:${tag}`;
        await expect(store.streamAppendManyAfter(k, null, [{ n: '1' }], [{ key: `idx:{${randomUUID()}}:a`, ttlSeconds: 60 }])).rejects.toThrow(RangeError);
        await expect(store.streamAppendManyAfter(k, null, [{ n: '1' }], [{ key: `idx:${tag}:a`, ttlSeconds: 0 }])).rejects.toThrow(RangeError);
        await expect(store.streamAppendManyAfter(k, null, [{ n: '1' }], [null, null])).rejects.toThrow(RangeError);
        expect(await store.streamRange(k)).toStrictEqual([]);
      });
      it('streamAppendManyAfter refuses an index key of another type before it writes anything', async () => {
        const tag = `{${randomUUID()}}`;
        const [k, a, taken] = [`chain:${tag}`, `idx:${tag}:a`, `idx:${tag}:taken`];
        await store.hashSet(taken, { not: 'an index' });
        await expect(store.streamAppendManyAfter(k, null, [{ n: '1' }, { n: '2' }], [{ key: a, ttlSeconds: 60 }, { key: taken, ttlSeconds: 60 }])).rejects.toThrow(/WRONGTYPE/);
        expect(await store.streamRange(k)).toStrictEqual([]);
        expect(await store.streamIndexRead(a)).toStrictEqual([]);
        expect(await store.hashGet(taken)).toStrictEqual({ not: 'an index' });
      });
      it('streamTrimBefore deletes the entries before the id named and writes the mark in the same step', async () => {
        const tag = `{${randomUUID()}}`;
        const [k, mark] = [`chain:${tag}`, `anchor:${tag}`];
        const appended = await store.streamAppendManyAfter(k, null, ['0', '1', '2', '3', '4'].map((n) => ({ n })));
        if (!appended.ok) throw new Error('the first batch after null must succeed');
        const ids = appended.ids;
        expect(await store.streamTrimBefore(k, ids[2]!, { key: mark, ifId: null, fields: { id: ids[1]!, seq: '1' } })).toStrictEqual({ ok: true, trimmed: 2 });
        expect((await store.streamRange(k)).map((entry) => entry.fields.n)).toStrictEqual(['2', '3', '4']);
        expect(await store.hashGet(mark)).toStrictEqual({ id: ids[1], seq: '1' });
        // The next trim is guarded by the mark it read: a stale one trims and writes nothing.
        expect(await store.streamTrimBefore(k, ids[4]!, { key: mark, ifId: null, fields: { id: ids[3]!, seq: '3' } })).toStrictEqual({ ok: false, mark: { id: ids[1], seq: '1' } });
        expect(await store.streamTrimBefore(k, ids[4]!, { key: mark, ifId: ids[1]!, fields: { id: ids[3]!, seq: '3' } })).toStrictEqual({ ok: true, trimmed: 2 });
        expect((await store.streamRange(k)).map((entry) => entry.fields.n)).toStrictEqual(['4']);
        expect(await store.hashGet(mark)).toStrictEqual({ id: ids[3], seq: '3' });
        // The newest entry stays: appends still link to it.
        expect(await store.streamAppendManyAfter(k, ids[4]!, [{ n: '5' }])).toMatchObject({ ok: true });
      });
      it('streamTrimBefore trims nothing when the first id to keep is not in the stream, so a stream is never emptied', async () => {
        const tag = `{${randomUUID()}}`;
        const [k, mark] = [`chain:${tag}`, `anchor:${tag}`];
        const appended = await store.streamAppendManyAfter(k, null, [{ n: '0' }, { n: '1' }]);
        if (!appended.ok) throw new Error('the first batch after null must succeed');
        const [, newest] = appended.ids as [string, string];
        const [ms, seq] = newest.split('-').map(Number) as [number, number];
        expect(await store.streamTrimBefore(k, `${ms}-${seq + 1}`, { key: mark, ifId: null, fields: { id: newest } })).toStrictEqual({ ok: false, mark: null });
        expect(await store.streamTrimBefore(`chain:${tag}:none`, '1-0', { key: mark, ifId: null, fields: { id: '0-1' } })).toStrictEqual({ ok: false, mark: null });
        expect(await store.streamRange(k)).toHaveLength(2);
        expect(await store.hashGet(mark)).toBeNull();
      });
      it('streamTrimBefore refuses a mark outside the stream key’s hash tag, a mark without id and a malformed id', async () => {
        const tag = `{${randomUUID()}}`;
        const k = `chain:${tag}`;
        await store.streamAppend(k, { n: '0' });
        await expect(store.streamTrimBefore(k, '1-0', { key: `anchor:{${randomUUID()}}`, ifId: null, fields: { id: '0-1' } })).rejects.toThrow(RangeError);
        await expect(store.streamTrimBefore(k, '1-0', { key: `anchor:${tag}`, ifId: null, fields: { seq: '0' } })).rejects.toThrow(RangeError);
        await expect(store.streamTrimBefore(k, 'nope', { key: `anchor:${tag}`, ifId: null, fields: { id: '0-1' } })).rejects.toThrow(RangeError);
        expect(await store.streamRange(k)).toHaveLength(1);
      });
      it('writers on 5 connections appending batches after the newest entry build one unbroken chain', async () => {
        const k = key('stream');
        const write = async (handle: Store, writer: number) => {
          let last: string | null = null;
          for (;;) {
            const result = await handle.streamAppendManyAfter(k, last, [0, 1, 2].map((i) => ({ writer: String(writer), i: String(i) })));
            if (result.ok) return;
            last = 'last' in result ? (result.last?.id ?? null) : last;
          }
        };
        await Promise.all(Array.from({ length: 10 }, (_, i) => write(handles[i % handles.length]!, i)));
        const entries = await store.streamRange(k);
        expect(entries).toHaveLength(30);
        // Each batch landed whole and in order: no batch interleaves with another.
        for (let at = 0; at < 30; at += 3) {
          const batch = entries.slice(at, at + 3);
          expect(batch.map((entry) => entry.fields.i)).toStrictEqual(['0', '1', '2']);
          expect(new Set(batch.map((entry) => entry.fields.writer)).size).toBe(1);
        }
        expect(new Set(entries.map((entry) => entry.fields.writer)).size).toBe(10);
      });
      it('20 writers on 5 connections appending after the newest entry build one unbroken chain', async () => {
        const k = key('stream');
        // Each writer links its entry to the newest one it saw and retries from the tail it lost to.
        const write = async (handle: Store, writer: number) => {
          let last: string | null = null;
          for (;;) {
            const result = await handle.streamAppendManyAfter(k, last, [{ writer: String(writer), prev: last ?? '' }]);
            if (result.ok) return;
            last = 'last' in result ? (result.last?.id ?? null) : last;
          }
        };
        await Promise.all(Array.from({ length: 20 }, (_, i) => write(handles[i % handles.length]!, i)));
        const entries = await store.streamRange(k);
        expect(entries).toHaveLength(20);
        expect(entries.map((entry) => entry.fields.prev)).toStrictEqual(['', ...entries.slice(0, -1).map((entry) => entry.id)]);
        expect(new Set(entries.map((entry) => entry.fields.writer)).size).toBe(20);
      });
    });

    describe('stream consumer group', () => {
      const GROUP = 'workers';
      /** A stream with a group and `n` entries `{n: '0'…}`; answers the key and the entries' ids. */
      const queue = async (n: number) => {
        const k = key('queue');
        const ids: string[] = [];
        // Two entries before the group exists: a group starts before the first entry, not at the end.
        for (let i = 0; i < Math.min(n, 2); i++) ids.push(await store.streamAppend(k, { n: String(i) }));
        expect(await store.streamGroupCreate(k, GROUP)).toBe(true);
        for (let i = ids.length; i < n; i++) ids.push(await store.streamAppend(k, { n: String(i) }));
        return { k, ids };
      };

      it('streamGroupCreate creates the group (and an empty stream) once; a second call answers false', async () => {
        const k = key('queue');
        expect(await store.streamGroupCreate(k, GROUP)).toBe(true);
        expect(await store.streamGroupCreate(k, GROUP)).toBe(false);
        expect(await store.streamGroupRead(k, GROUP, 'c1', 10)).toStrictEqual([]);
        expect(await store.streamRange(k)).toStrictEqual([]);
      });
      it('a missing stream or group reads and claims as null and has nothing pending', async () => {
        const k = key('queue');
        expect(await store.streamGroupRead(k, GROUP, 'c1', 10)).toBeNull();
        expect(await store.streamClaim(k, GROUP, 'c1', { minIdleMs: 0, count: 10 })).toBeNull();
        expect(await store.streamPendingCount(k, GROUP)).toBe(0);
        await store.streamAppend(k, { n: '0' });
        expect(await store.streamGroupRead(k, GROUP, 'c1', 10)).toBeNull();
        expect(await store.streamAck(k, GROUP, ['1-0'])).toBe(0);
      });
      it('streamGroupRead delivers each entry once, oldest first, with its fields, count at a time', async () => {
        const { k, ids } = await queue(5);
        const first = await store.streamGroupRead(k, GROUP, 'c1', 3);
        expect(first).toStrictEqual(ids.slice(0, 3).map((id, i) => ({ id, fields: { n: String(i) } })));
        expect((await store.streamGroupRead(k, GROUP, 'c2', 10))?.map((entry) => entry.id)).toStrictEqual(ids.slice(3));
        expect(await store.streamGroupRead(k, GROUP, 'c1', 10)).toStrictEqual([]);
        expect(await store.streamPendingCount(k, GROUP)).toBe(5);
        const later = await store.streamAppend(k, { n: '5' });
        expect((await store.streamGroupRead(k, GROUP, 'c2', 10))?.map((entry) => entry.id)).toStrictEqual([later]);
        await expect(store.streamGroupRead(k, GROUP, 'c1', 0)).rejects.toThrow(RangeError);
      });
      it('streamAck acknowledges and deletes: the entry is neither pending nor in the stream; a second ack counts 0', async () => {
        const { k, ids } = await queue(3);
        await store.streamGroupRead(k, GROUP, 'c1', 10);
        expect(await store.streamAck(k, GROUP, [ids[0]!, ids[2]!])).toBe(2);
        expect(await store.streamPendingCount(k, GROUP)).toBe(1);
        expect((await store.streamRange(k)).map((entry) => entry.id)).toStrictEqual([ids[1]]);
        expect(await store.streamAck(k, GROUP, [ids[0]!])).toBe(0);
        expect(await store.streamAck(k, GROUP, [])).toBe(0);
      });
      it('streamClaim takes over only entries idle for minIdleMs, with their fields, and resets their idle time', async () => {
        const { k, ids } = await queue(2);
        await store.streamGroupRead(k, GROUP, 'c1', 10);
        expect(await store.streamClaim(k, GROUP, 'c2', { minIdleMs: 100, count: 10 })).toStrictEqual({ cursor: '0-0', entries: [], deleted: [] });
        await harness.elapse(150);
        const claimed = await store.streamClaim(k, GROUP, 'c2', { minIdleMs: 100, count: 10 });
        expect(claimed).toStrictEqual({ cursor: '0-0', entries: ids.map((id, i) => ({ id, fields: { n: String(i) } })), deleted: [] });
        // Just claimed: not idle, so a third consumer gets nothing.
        expect((await store.streamClaim(k, GROUP, 'c3', { minIdleMs: 100, count: 10 }))?.entries).toStrictEqual([]);
        expect(await store.streamAck(k, GROUP, ids)).toBe(2);
        expect(await store.streamPendingCount(k, GROUP)).toBe(0);
        await expect(store.streamClaim(k, GROUP, 'c3', { minIdleMs: -1, count: 1 })).rejects.toThrow(RangeError);
      });
      it('streamClaim pages through the pending entries with its cursor, back to 0-0 at the end', async () => {
        const { k, ids } = await queue(3);
        await store.streamGroupRead(k, GROUP, 'c1', 10);
        const seen: string[] = [];
        let cursor = '0-0';
        for (let page = 0; page < 3; page++) {
          const result = await store.streamClaim(k, GROUP, 'c2', { minIdleMs: 0, count: 1, cursor });
          seen.push(...result!.entries.map((entry) => entry.id));
          cursor = result!.cursor;
          expect(cursor).toBe(page < 2 ? ids[page + 1] : '0-0');
        }
        expect(seen).toStrictEqual(ids);
      });
      it('10 consumers on 5 connections reading at once get each of 40 entries exactly once', async () => {
        const { k, ids } = await queue(40);
        const got: string[] = [];
        await Promise.all(Array.from({ length: 10 }, async (_, i) => {
          for (;;) {
            const entries = await handles[i % handles.length]!.streamGroupRead(k, GROUP, `c${i}`, 3);
            if (!entries?.length) return;
            got.push(...entries.map((entry) => entry.id));
          }
        }));
        expect([...got].sort()).toStrictEqual([...ids].sort());
      });
      it('streamConsumers lists each consumer delivered or claiming entries, with its pending count and idle time', async () => {
        const { k, ids } = await queue(3);
        expect(await store.streamConsumers(key('queue'), GROUP)).toStrictEqual([]);
        expect(await store.streamConsumers(k, 'nobody')).toStrictEqual([]);
        expect(await store.streamConsumers(k, GROUP)).toStrictEqual([]);
        await store.streamGroupRead(k, GROUP, 'c1', 2);
        await store.streamGroupRead(k, GROUP, 'c2', 10);
        await harness.elapse(120);
        await store.streamClaim(k, GROUP, 'c4', { minIdleMs: 100, count: 1 }); // takes ids[0] from c1
        const consumers = new Map((await store.streamConsumers(k, GROUP)).map((consumer) => [consumer.name, consumer]));
        expect([...consumers.keys()].sort()).toStrictEqual(['c1', 'c2', 'c4']);
        expect(['c1', 'c2', 'c4'].map((name) => consumers.get(name)!.pending)).toStrictEqual([1, 1, 1]);
        for (const name of ['c1', 'c2']) expect(consumers.get(name)!.idleMs).toBeGreaterThanOrEqual(100);
        expect(consumers.get('c4')!.idleMs).toBeLessThan(100);
        expect(await store.streamAck(k, GROUP, ids)).toBe(3);
      });
      it('streamConsumerRemove removes only a consumer with nothing pending, idle for minIdleMs', async () => {
        const { k, ids } = await queue(2);
        await store.streamGroupRead(k, GROUP, 'busy', 1);
        await store.streamGroupRead(k, GROUP, 'done', 1);
        await store.streamAck(k, GROUP, [ids[1]!]);
        // Not idle long enough yet.
        expect(await store.streamConsumerRemove(k, GROUP, 'done', { minIdleMs: 100 })).toBe(false);
        await harness.elapse(120);
        // Idle, but an entry is pending on it: removing it would strand the entry.
        expect(await store.streamConsumerRemove(k, GROUP, 'busy', { minIdleMs: 100 })).toBe(false);
        expect(await store.streamConsumerRemove(k, GROUP, 'done', { minIdleMs: 100 })).toBe(true);
        expect(await store.streamConsumerRemove(k, GROUP, 'done', { minIdleMs: 100 })).toBe(false);
        expect(await store.streamConsumerRemove(k, GROUP, 'never', { minIdleMs: 0 })).toBe(false);
        expect(await store.streamConsumerRemove(key('queue'), GROUP, 'done', { minIdleMs: 0 })).toBe(false);
        expect((await store.streamConsumers(k, GROUP)).map((consumer) => consumer.name)).toStrictEqual(['busy']);
        // The entry pending on `busy` is still there to be claimed.
        expect((await store.streamClaim(k, GROUP, 'other', { minIdleMs: 100, count: 10 }))?.entries.map((entry) => entry.id)).toStrictEqual([ids[0]]);
        await expect(store.streamConsumerRemove(k, GROUP, 'busy', { minIdleMs: -1 })).rejects.toThrow(RangeError);
      });
      it('10 consumers on 5 connections claiming one stale entry at once: exactly one takes it', async () => {
        const { k, ids } = await queue(1);
        await store.streamGroupRead(k, GROUP, 'dead', 1);
        await harness.elapse(60);
        const results = await Promise.all(Array.from({ length: 10 }, (_, i) => handles[i % handles.length]!.streamClaim(k, GROUP, `c${i}`, { minIdleMs: 50, count: 1 })));
        expect(results.flatMap((result) => result!.entries.map((entry) => entry.id))).toStrictEqual(ids);
      });
    });

    describe('TTL', () => {
      // Every case is arranged with a 1 s TTL, then time passes once (1.1 s) for all of them.
      const cases: [string, (k: string) => Promise<unknown>, (k: string) => Promise<void>][] = [
        ['set with a TTL expires', (k) => store.set(k, 'v', { ttlSeconds: 1 }), async (k) => expect(await store.get(k)).toBeNull()],
        ['set without a TTL clears an earlier one', async (k) => { await store.set(k, 'v', { ttlSeconds: 1 }); await store.set(k, 'w'); }, async (k) => expect(await store.get(k)).toBe('w')],
        ['set with onlyIfAbsent writes again once the key expired', (k) => store.set(k, 'v', { ttlSeconds: 1, onlyIfAbsent: true }), async (k) => expect(await store.set(k, 'w', { onlyIfAbsent: true })).toBe(true)],
        ['take of an expired value returns null', (k) => store.set(k, 'v', { ttlSeconds: 1 }), async (k) => expect(await store.take(k)).toBeNull()],
        ['hashCreate gives the record its TTL, then creates it again', (k) => store.hashCreate(k, { a: '1' }, 1), async (k) => { expect(await store.hashGet(k)).toBeNull(); expect(await store.hashCreate(k, { a: '2' }, 60)).toBe(true); }],
        ['hashSet with a TTL resets it', async (k) => { await store.hashCreate(k, { a: '1' }, 1); await store.hashSet(k, { b: '2' }, 60); }, async (k) => expect(await store.hashGet(k)).toStrictEqual({ a: '1', b: '2' })],
        ['hashSet without a TTL keeps it', async (k) => { await store.hashCreate(k, { a: '1' }, 1); await store.hashSet(k, { b: '2' }); }, async (k) => expect(await store.hashGet(k)).toBeNull()],
        ['compareAndSet with a TTL resets it', async (k) => { await store.hashCreate(k, { a: '1' }, 1); await store.compareAndSet(k, [], { b: '2' }, { ttlSeconds: 60 }); }, async (k) => expect(await store.hashGet(k)).toStrictEqual({ a: '1', b: '2' })],
        ['compareAndSet without a TTL keeps it', async (k) => { await store.hashCreate(k, { a: '1' }, 1); await store.compareAndSet(k, [], { b: '2' }); }, async (k) => expect(await store.hashGet(k)).toBeNull()],
        ['replace keeps the TTL', async (k) => { await store.set(k, 'a', { ttlSeconds: 1 }); await store.replace(k, 'a', 'b'); }, async (k) => expect(await store.get(k)).toBeNull()],
        ['pollThrottle keeps the TTL', async (k) => { await store.hashCreate(k, { interval: '5' }, 1); await store.pollThrottle(k, T); }, async (k) => expect(await store.hashGet(k)).toBeNull()],
        ['windowAdd keeps a window only as long as its newest entry counts', (k) => store.windowAdd(k, { nowMs: T, windowMs: 1000, member: 'a', maxCount: 1 }), async (k) => expect(await store.delete(k)).toBe(false)],
        ['rateLimit keeps a counter only while its schedule runs ahead of now', (k) => store.rateLimit(k, { nowMs: T, count: 1, windowMs: 1000 }), async (k) => expect(await store.delete(k)).toBe(false)],
        ['setAdd with a TTL sets it', (k) => store.setAdd(k, 'a', 1), async (k) => expect(await store.setMembers(k)).toStrictEqual([])],
        ['setAdd with a TTL resets it', async (k) => { await store.setAdd(k, 'a', 1); await store.setAdd(k, 'b', 60); }, async (k) => expect((await store.setMembers(k)).sort()).toStrictEqual(['a', 'b'])],
        ['setAdd without a TTL keeps it', async (k) => { await store.setAdd(k, 'a', 1); await store.setAdd(k, 'b'); }, async (k) => expect(await store.setMembers(k)).toStrictEqual([])],
        ['sortedAdd with a TTL sets it', (k) => store.sortedAdd(k, 'a', 1, 1), async (k) => expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual([])],
        ['sortedAdd with a TTL resets it', async (k) => { await store.sortedAdd(k, 'a', 1, 1); await store.sortedAdd(k, 'b', 2, 60); }, async (k) => expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual(['a', 'b'])],
        ['sortedAdd without a TTL keeps it', async (k) => { await store.sortedAdd(k, 'a', 1, 1); await store.sortedAdd(k, 'b', 2); }, async (k) => expect(await store.sortedRangeByScore(k, 10, 10)).toStrictEqual([])],
        ['streamAppendManyAfter gives an index its TTL', (k) => store.streamAppendManyAfter(`chain:{${k}}`, null, [{ n: '1' }], [{ key: `idx:{${k}}`, ttlSeconds: 1 }]), async (k) => expect(await store.streamIndexRead(`idx:{${k}}`)).toStrictEqual([])],
        ['streamAppendManyAfter resets an index’s TTL', async (k) => {
          const first = await store.streamAppendManyAfter(`chain:{${k}}`, null, [{ n: '1' }], [{ key: `idx:{${k}}`, ttlSeconds: 1 }]);
          await store.streamAppendManyAfter(`chain:{${k}}`, first.ok ? first.ids[0]! : null, [{ n: '2' }], [{ key: `idx:{${k}}`, ttlSeconds: 60 }]);
        }, async (k) => expect(await store.streamIndexRead(`idx:{${k}}`)).toHaveLength(2)],
      ];
      const caseKeys = cases.map(() => key('ttl'));
      beforeAll(async () => {
        await Promise.all(cases.map(([, arrange], i) => arrange(caseKeys[i]!)));
        await harness.elapse(1100);
      });
      it.each(cases.map(([behaviour, , check], i) => [behaviour, check, i] as const))('%s', async (_, check, i) => {
        await check(caseKeys[i]!);
      });
    });
  });
}
