import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keys } from '../keys.ts';
import type { Guard, Store } from '../types.ts';
import { openHandles, type StoreHarness } from './harness.ts';

export const APPROVED: Guard = { field: 'state', op: 'eq', value: 'approved' };
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
const DECIMALS: [string, number][] = [
  ['0', 0],
  ['7', 7],
  ['-2.5', -2.5],
  ['1700000000000', 1700000000000],
];
const NOT_DECIMALS = ['', ' 7 ', '0x10', '1e3', '.5', '5.', '+3', 'abc', '12abc', 'Infinity', 'NaN'];

/**
 * The compare-and-swap of {@link RecordStore} (`compareAndSet`), as one vitest suite under the
 * RecordStore contract's title: guards, numeric comparisons, the outbox entry and racing redeemers.
 * Each test uses its own keys, so implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeCompareAndSetContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (RecordStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
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
        const guards: Guard[] = [
          { field: 'state', op: 'present' },
          { field: 'state', op: 'eq', value: 'denied' },
          { field: 'state', op: 'absent' },
        ];
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
          for (const [op, limit] of [
            ['lt', 6],
            ['gt', 6],
            ['lt', 0],
            ['gt', 0],
          ] as const) {
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
        const results = await Promise.all(Array.from({ length: 50 }, (_, i) => handles[i % handles.length]!.compareAndSet(k, [APPROVED], { state: 'redeemed', redemption_id: `rdm_${i}` })));
        const winners = results.filter((result) => result.ok);
        expect(winners).toHaveLength(1);
        const redeemed = { state: 'redeemed', redemption_id: winners[0]!.fields!.redemption_id! };
        for (const loser of results.filter((result) => !result.ok)) {
          expect(loser).toStrictEqual({ ok: false, fields: redeemed, failedGuard: 0 });
        }
        expect(await store.hashGet(k)).toStrictEqual(redeemed);
      });
    });
  });
}
