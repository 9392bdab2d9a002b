import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { LateSwapError, type Store } from '../types.ts';
import { openHandles, type StoreHarness } from './harness.ts';

/**
 * The contract of what makes a transition's consequences durable (docs/reliability.md): the outbox
 * entry a compare-and-swap writes with itself, the swap's deadline, and the audit append that
 * lands once per token. Part of every Store's contract: memory, Redis, Redis Cluster.
 */
export function describeOutboxContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describe(`${name} (outbox contract)`, () => {
    let store: Store;
    let handles: Store[];
    openHandles(makeStore, harness, (opened) => {
      [store] = opened as [Store];
      handles = opened;
    });
    // One hash tag per test, as a request's record and its chain each have theirs.
    const key = (label: string) => `outbox:{${randomUUID()}}:${label}`;

    it('a swap with an outbox entry writes it as ob:<seq>, counting seq from 1', async () => {
      const k = key('req');
      await store.hashCreate(k, { state: 'pending' }, 60);
      const first = await store.compareAndSet(k, [{ field: 'state', op: 'eq', value: 'pending' }], { state: 'approved' }, { outbox: '{"op":"approve"}' });
      expect(first).toEqual({ ok: true, fields: { state: 'approved', seq: '1', 'ob:1': '{"op":"approve"}' } });
      const second = await store.compareAndSet(k, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' }, { outbox: '{"op":"redeem"}' });
      expect(second.fields).toEqual({ state: 'redeemed', seq: '2', 'ob:1': '{"op":"approve"}', 'ob:2': '{"op":"redeem"}' });
    });

    it('a swap whose guard fails writes no outbox entry and leaves seq as it was', async () => {
      const k = key('req');
      await store.hashCreate(k, { state: 'denied', seq: '4' }, 60);
      const result = await store.compareAndSet(k, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' }, { outbox: '{"op":"redeem"}' });
      expect(result).toEqual({ ok: false, fields: { state: 'denied', seq: '4' }, failedGuard: 0 });
      expect(await store.hashGet(k)).toEqual({ state: 'denied', seq: '4' });
    });

    it('of many swaps racing with outbox entries, one wins and writes the only entry', async () => {
      const k = key('req');
      await store.hashCreate(k, { state: 'approved' }, 60);
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => handles[i % handles.length]!.compareAndSet(k, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed', by: String(i) }, { outbox: `{"by":${i}}` })));
      const winners = results.filter((result) => result.ok);
      expect(winners).toHaveLength(1);
      const fields = (await store.hashGet(k))!;
      expect(fields.seq).toBe('1');
      expect(fields['ob:1']).toBe(`{"by":${fields.by}}`);
      expect(Object.keys(fields).filter((field) => field.startsWith('ob:'))).toEqual(['ob:1']);
    });

    it('a swap that reaches Redis after its deadline writes nothing and fails with LateSwapError', async () => {
      const k = key('req');
      await store.hashCreate(k, { state: 'approved' }, 60);
      const late = store.compareAndSet(k, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' }, { outbox: 'x', notAfterMs: Date.now() - 1000 });
      if (store.kind === 'memory') {
        // The memory store runs every call at once: there is no queue to wait in.
        expect((await late).ok).toBe(true);
        return;
      }
      await expect(late).rejects.toBeInstanceOf(LateSwapError);
      expect(await store.hashGet(k)).toEqual({ state: 'approved' });
      // A deadline still ahead is no obstacle.
      expect((await store.compareAndSet(k, [], { state: 'redeemed' }, { notAfterMs: Date.now() + 5000 })).ok).toBe(true);
    });

    it('an append whose once-token its index holds writes nothing and names the entry', async () => {
      const chain = key('chain');
      const index = { key: chain.replace(':chain', ':idx'), ttlSeconds: 60 };
      const first = await store.streamAppendManyAfter(chain, null, [{ e: 'a' }], [{ ...index, once: '1.0' }]);
      expect(first.ok).toBe(true);
      const ids = first.ok ? first.ids : [];
      expect(await store.streamIndexRead(index.key)).toEqual(ids);
      expect(await store.get(index.key)).toBe(`${ids[0]}#1.0`);
      // The tail matches, the token is held: the duplicate is named and nothing is written.
      const again = await store.streamAppendManyAfter(
        chain,
        ids[0]!,
        [{ e: 'b' }, { e: 'a' }],
        [
          { ...index, once: '2.0' },
          { ...index, once: '1.0' },
        ],
      );
      expect(again).toEqual({ ok: false, duplicate: 1 });
      expect((await store.streamRange(chain)).map((entry) => entry.fields.e)).toEqual(['a']);
      // Without it, the rest appends; an entry without a token is never a duplicate.
      const rest = await store.streamAppendManyAfter(chain, ids[0]!, [{ e: 'b' }, { e: 'c' }], [{ ...index, once: '2.0' }, index]);
      expect(rest.ok).toBe(true);
      expect((await store.streamRange(chain)).map((entry) => entry.fields.e)).toEqual(['a', 'b', 'c']);
      expect(await store.streamIndexRead(index.key)).toHaveLength(3);
    });

    it('two entries of one batch with the same once-token: the second is the duplicate', async () => {
      const chain = key('chain');
      const index = { key: chain.replace(':chain', ':idx'), ttlSeconds: 60, once: '3.1' };
      expect(await store.streamAppendManyAfter(chain, null, [{ e: 'a' }, { e: 'a' }], [index, index])).toEqual({ ok: false, duplicate: 1 });
      expect(await store.streamRange(chain)).toEqual([]);
    });

    it('a once-token that could split an index into other words is refused', async () => {
      const chain = key('chain');
      await expect(store.streamAppendManyAfter(chain, null, [{ e: 'a' }], [{ key: chain.replace(':chain', ':idx'), ttlSeconds: 60, once: '1 2' }])).rejects.toThrow(RangeError);
    });
  });
}
