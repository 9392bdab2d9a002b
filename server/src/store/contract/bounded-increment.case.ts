import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keys } from '../keys.ts';
import type { Store } from '../types.ts';
import { APPROVED } from './compare-and-set.case.ts';
import { openHandles, type StoreHarness } from './harness.ts';

/**
 * The bounded increments of {@link RecordStore} `compareAndSet` (a mandate's spent total and count),
 * as one vitest suite under the RecordStore contract's title. Each test uses its own keys, so
 * implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeBoundedIncrementContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (RecordStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
    });

    describe('compareAndSet with bounded increments', () => {
      it('raises each counter (a missing one from 0) with the write, while it stays within its bound', async () => {
        const k = key('h');
        await store.hashCreate(k, { state: 'approved', spent: '60' }, 60);
        const result = await store.compareAndSet(
          k,
          [APPROVED],
          { last: 'a' },
          {
            increments: [
              { field: 'spent', by: 40, max: 100 },
              { field: 'count', by: 1, max: 3 },
            ],
            outbox: '{"op":"spend"}',
          },
        );
        expect(result).toStrictEqual({ ok: true, fields: { state: 'approved', spent: '100', count: '1', last: 'a', seq: '1', 'ob:1': '{"op":"spend"}' } });
      });
      it('refuses an increment one past its bound, after the guards, and writes nothing', async () => {
        const k = key('h');
        const before = { state: 'approved', spent: '60', count: '2' };
        await store.hashCreate(k, before, 60);
        const over = await store.compareAndSet(
          k,
          [APPROVED],
          { last: 'b' },
          {
            increments: [
              { field: 'count', by: 1, max: 3 },
              { field: 'spent', by: 41, max: 100 },
            ],
            outbox: '{"op":"spend"}',
          },
        );
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
        const results = await Promise.all(Array.from({ length: 100 }, (_, i) => handles[i % handles.length]!.compareAndSet(k, [APPROVED, { field: `x:${i}`, op: 'absent' }], { [`x:${i}`]: '1' }, { increments: [{ field: 'spent', by: 3, max: 111 }] })));
        expect(results.filter((result) => result.ok)).toHaveLength(37);
        const fields = (await store.hashGet(k))!;
        expect(fields.spent).toBe('111');
        expect(Object.keys(fields).filter((field) => field.startsWith('x:'))).toHaveLength(37);
      });
    });
  });
}
