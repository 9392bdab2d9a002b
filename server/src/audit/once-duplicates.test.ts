import { afterAll, describe, expect, inject, it } from 'vitest';
import { ManualClock } from '../runtime/index.ts';
import { connectRedisStore, MemoryStore, type Store } from '../store/index.ts';
import { createAuditLog } from './audit-log.ts';

/**
 * An outbox that delivers many entries again at once (the reconciler, after the job queue was down
 * and every approval's notification failed while its audit event had landed): one batch of the
 * appender then holds many events already in the chain. Each costs one round trip to drop, and
 * must not count as a lost race: the batch, and the new events in it, still land.
 */
describe.each([
  ['memory', async () => new MemoryStore()],
  ['redis', () => connectRedisStore(inject('redisUrl'), { prefix: `test:once-dup:${Math.random().toString(36).slice(2)}:` })],
] as const)('once-tokens on the %s store', (_kind, makeStore) => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it('a batch with more than 100 events already in the chain still appends its new one', async () => {
    const store = await makeStore();
    stores.push(store);
    const audit = createAuditLog(store, new ManualClock(), 3600);
    const event = (i: number) => ({ tenant: 'default', auth_req_id: `req_dup_${String(i).padStart(6, '0')}_abcdefgh`, client_id: 'cli_test', sub: 'alice', channel: 'device' as const, type: 'approved' as const });
    const delivered = Array.from({ length: 120 }, (_, i) => i);
    await Promise.all(delivered.map((i) => audit.record(event(i), { once: '1.0' })));

    // Delivered again, all at once, with one new event of a live transition in the same batch.
    const again = await Promise.allSettled([...delivered.map((i) => audit.record(event(i), { once: '1.0' })), audit.record(event(999), { once: '1.0' })]);
    expect(again.filter((result) => result.status === 'rejected')).toEqual([]);
    expect((await audit.forRequest('default', event(999).auth_req_id)).map((stored) => stored.type)).toEqual(['approved']);
    expect(await audit.forRequest('default', event(0).auth_req_id)).toHaveLength(1);
    expect((await audit.verify('default')).ok).toBe(true);
  });
});
