import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Store } from '../types.ts';
import { openHandles, type StoreHarness } from './harness.ts';

/**
 * The behaviour every implementation of {@link QueueStore} must show, as one vitest suite. The work
 * queue: a stream read by a consumer group. Each test uses its own keys, so implementations may
 * share a server with other test files.
 *
 * @param name - the suite's title, e.g. `'RedisStore'`.
 * @param makeStore - called once for the suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeQueueStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (QueueStore contract)`, () => {
    let store: Store;
    let handles: Store[];
    const key = (label: string) => `contract:${randomUUID()}:${label}`;
    openHandles(makeStore, harness, (opened) => {
      handles = opened;
      store = opened[0]!;
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
        expect(await store.streamLength(k)).toBe(0);
        await store.streamAppend(k, { n: '0' });
        expect(await store.streamLength(k)).toBe(1);
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
        expect(await store.streamLength(k)).toBe(5);
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
        await Promise.all(
          Array.from({ length: 10 }, async (_, i) => {
            for (;;) {
              const entries = await handles[i % handles.length]!.streamGroupRead(k, GROUP, `c${i}`, 3);
              if (!entries?.length) return;
              got.push(...entries.map((entry) => entry.id));
            }
          }),
        );
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
  });
}
