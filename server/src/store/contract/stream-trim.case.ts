import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { openHandles, type StoreHarness } from './harness.ts';

/**
 * Trimming {@link StreamStore} streams (`streamTrimBefore`) and chains built by racing writers, as
 * one vitest suite under the StreamStore contract's title. Each test uses its own keys, so
 * implementations may share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeStreamTrimContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (StreamStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
    });

    describe('stream', () => {
      it('streamTrimBefore deletes the entries before the id named and writes the mark in the same step', async () => {
        const tag = `{${randomUUID()}}`;
        const [k, mark] = [`chain:${tag}`, `anchor:${tag}`];
        const appended = await store.streamAppendManyAfter(
          k,
          null,
          ['0', '1', '2', '3', '4'].map((n) => ({ n })),
        );
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
            const result = await handle.streamAppendManyAfter(
              k,
              last,
              [0, 1, 2].map((i) => ({ writer: String(writer), i: String(i) })),
            );
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
  });
}
