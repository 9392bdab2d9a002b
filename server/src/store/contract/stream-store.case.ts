import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { describeTtl, openHandles, type StoreHarness } from './harness.ts';

/**
 * The behaviour every implementation of {@link StreamStore} must show, as one vitest suite.
 * Streams: the append-only logs of the audit chain. Each test uses its own keys, so implementations
 * may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeStreamStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (StreamStore contract)`, () => {
    let store: Store;
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      store = opened[0]!;
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
        const second = await store.streamAppendManyAfter(
          k,
          first.ids[2]!,
          [{ n: '4' }, { n: '5' }],
          [
            { key: b, ttlSeconds: 60 },
            { key: a, ttlSeconds: 60 },
          ],
        );
        if (!second.ok) throw new Error('a batch after the newest id must succeed');
        expect(await store.streamIndexRead(a)).toStrictEqual([first.ids[0], first.ids[2], second.ids[1]]);
        expect(await store.streamIndexRead(b)).toStrictEqual([second.ids[0]]);
        expect(await store.streamGet(k, [second.ids[1]!, first.ids[1]!, '1-0'])).toStrictEqual([{ id: second.ids[1], fields: { n: '5' } }, { id: first.ids[1], fields: { n: '2' } }, null]);
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
        await expect(
          store.streamAppendManyAfter(
            k,
            null,
            [{ n: '1' }, { n: '2' }],
            [
              { key: a, ttlSeconds: 60 },
              { key: taken, ttlSeconds: 60 },
            ],
          ),
        ).rejects.toThrow(/WRONGTYPE/);
        expect(await store.streamRange(k)).toStrictEqual([]);
        expect(await store.streamIndexRead(a)).toStrictEqual([]);
        expect(await store.hashGet(taken)).toStrictEqual({ not: 'an index' });
      });
    });

    describeTtl(key, harness, [
      ['streamAppendManyAfter gives an index its TTL', (k) => store.streamAppendManyAfter(`chain:{${k}}`, null, [{ n: '1' }], [{ key: `idx:{${k}}`, ttlSeconds: 1 }]), async (k) => expect(await store.streamIndexRead(`idx:{${k}}`)).toStrictEqual([])],
      [
        'streamAppendManyAfter resets an index’s TTL',
        async (k) => {
          const first = await store.streamAppendManyAfter(`chain:{${k}}`, null, [{ n: '1' }], [{ key: `idx:{${k}}`, ttlSeconds: 1 }]);
          await store.streamAppendManyAfter(`chain:{${k}}`, first.ok ? first.ids[0]! : null, [{ n: '2' }], [{ key: `idx:{${k}}`, ttlSeconds: 60 }]);
        },
        async (k) => expect(await store.streamIndexRead(`idx:{${k}}`)).toHaveLength(2),
      ],
    ]);
  });
}
