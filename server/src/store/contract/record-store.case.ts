import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keys } from '../keys.ts';
import type { Guard, Store } from '../types.ts';
import { describeTtl, openHandles, type StoreHarness, T } from './harness.ts';

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

    describe('compareAndSet with bounded increments', () => {
      it('raises each counter (a missing one from 0) with the write, while it stays within its bound', async () => {
        const k = key('h');
        await store.hashCreate(k, { state: 'approved', spent: '60' }, 60);
        const result = await store.compareAndSet(k, [APPROVED], { last: 'a' }, { increments: [{ field: 'spent', by: 40, max: 100 }, { field: 'count', by: 1, max: 3 }], outbox: '{"op":"spend"}' });
        expect(result).toStrictEqual({ ok: true, fields: { state: 'approved', spent: '100', count: '1', last: 'a', seq: '1', 'ob:1': '{"op":"spend"}' } });
      });
      it('refuses an increment one past its bound, after the guards, and writes nothing', async () => {
        const k = key('h');
        const before = { state: 'approved', spent: '60', count: '2' };
        await store.hashCreate(k, before, 60);
        const over = await store.compareAndSet(k, [APPROVED], { last: 'b' }, { increments: [{ field: 'count', by: 1, max: 3 }, { field: 'spent', by: 41, max: 100 }], outbox: '{"op":"spend"}' });
        expect(over).toStrictEqual({ ok: false, fields: before, failedGuard: 2 });
        const guarded = await store.compareAndSet(k, [{ field: 'state', op: 'eq', value: 'expired' }], {}, { increments: [{ field: 'spent', by: 500, max: 100 }] });
        expect(guarded).toStrictEqual({ ok: false, fields: before, failedGuard: 0 });
        expect(await store.hashGet(k)).toStrictEqual(before);
      });
      it('fails the bound of a counter that holds no whole number', async () => {
        const k = key('h');
        await store.hashCreate(k, { spent: '1.5' }, 60);
        expect(await store.compareAndSet(k, [], {}, { increments: [{ field: 'spent', by: 1, max: 100 }] })).toMatchObject({ ok: false, failedGuard: 0 });
      });
      it('refuses a negative or unsafe increment before reaching the store', async () => {
        const k = key('h');
        await expect(store.compareAndSet(k, [], {}, { increments: [{ field: 'spent', by: -1, max: 100 }] })).rejects.toThrow(RangeError);
        await expect(store.compareAndSet(k, [], {}, { increments: [{ field: 'spent', by: 1.5, max: 100 }] })).rejects.toThrow(RangeError);
      });
      it('100 concurrent increments of 3 against a bound of 111 have exactly 37 winners', async () => {
        const k = keys.request('contract', randomUUID());
        await store.hashCreate(k, { state: 'approved' }, 60);
        const results = await Promise.all(
          Array.from({ length: 100 }, (_, i) => handles[i % handles.length]!.compareAndSet(k, [APPROVED, { field: `x:${i}`, op: 'absent' }], { [`x:${i}`]: '1' }, { increments: [{ field: 'spent', by: 3, max: 111 }] })),
        );
        expect(results.filter((result) => result.ok)).toHaveLength(37);
        const fields = (await store.hashGet(k))!;
        expect(fields.spent).toBe('111');
        expect(Object.keys(fields).filter((field) => field.startsWith('x:'))).toHaveLength(37);
      });
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

    describeTtl(key, harness, [
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
      ['hashThrottle keeps the TTL', async (k) => { await store.hashCreate(k, { interval: '5' }, 1); await store.hashThrottle(k, { nowMs: T, intervalField: 'interval', nextAtField: 'next_poll_at', unitMs: 1000, defaultInterval: 5, earlyIncrement: 5 }); }, async (k) => expect(await store.hashGet(k)).toBeNull()],
    ]);
  });
}
