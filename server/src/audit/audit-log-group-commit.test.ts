import { describe, expect, it } from 'vitest';
import { keys } from '../store/index.ts';
import { createAuditLog } from './audit-log.ts';
import { MAX_BATCH } from './chain-appender.ts';
import { counting, lines, world } from './audit-log.test-support.ts';

/** Group commit: concurrent records land in few script calls, capped, in order; a failed or raced batch is handled whole. */
describe('createAuditLog', () => {
  it('group commit: 200 concurrent records land in a few script calls, in call order, and verify', async () => {
    const { clock, store } = world();
    const { counted, calls } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    await Promise.all(Array.from({ length: 200 }, (_, n) => audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', auth_req_id: `req_${n % 4}`, channel: 'agent', detail: { n } })));
    expect(calls.streamAppendAfter ?? 0).toBe(0);
    expect(calls.streamAppendManyAfter).toBeGreaterThan(0);
    expect(calls.streamAppendManyAfter).toBeLessThanOrEqual(3);
    // The per-request view is indexed by the same script calls: no list append of its own.
    expect(calls.listAppend ?? 0).toBe(0);
    // Nor is the list of the layout before written: there is no key to delete.
    expect(await store.delete(keys.requestAudit('default', 'req_1'))).toBe(false);
    const exported = (await lines(audit.export('default'))).map((line) => JSON.parse(line) as { seq: number; detail: { n: number } });
    expect(exported.map((event) => event.detail.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 200, head: { seq: 199 } });
    expect((await audit.forRequest('default', 'req_1')).map((event) => event.detail?.n)).toEqual(Array.from({ length: 50 }, (_, i) => i * 4 + 1));
  });

  it('group commit: caps a batch, keeps batching while one is in flight, and chains across batches', async () => {
    const { clock, store } = world();
    const { counted, sizes } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    const first = Array.from({ length: MAX_BATCH + 10 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n } }));
    await Promise.resolve();
    const later = Array.from({ length: 5 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 1000 + n } }));
    await Promise.all([...first, ...later]);
    expect(Math.max(...sizes)).toBe(MAX_BATCH);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(MAX_BATCH + 15);
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: MAX_BATCH + 15 });
  });

  it('group commit: a batch that cannot be stored rejects each of its callers, and the next batch still links', async () => {
    const { clock, store } = world();
    const { counted, failNext } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    await audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 0 } });
    failNext('streamAppendManyAfter');
    const failed = await Promise.allSettled(Array.from({ length: 3 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 1 + n } })));
    expect(failed.map((result) => result.status)).toEqual(['rejected', 'rejected', 'rejected']);
    await Promise.all(Array.from({ length: 3 }, (_, n) => audit.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 10 + n } })));
    const exported = (await lines(audit.export('default'))).map((line) => JSON.parse(line) as { detail: { n: number } });
    expect(exported.map((event) => event.detail.n)).toEqual([0, 10, 11, 12]);
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 4 });
  });

  it('group commit: a batch that lost a race to another instance is re-chained whole on the new head', async () => {
    const { clock, store } = world();
    const { counted, calls } = counting(store);
    const mine = createAuditLog(counted, clock, 3600);
    const other = createAuditLog(store, clock, 3600);
    await mine.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 0 } });
    await other.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 1 } });
    await other.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 2 } });
    const before = calls.streamAppendManyAfter!;
    await Promise.all(Array.from({ length: 5 }, (_, n) => mine.record({ type: 'refused', tenant: 'default', channel: 'agent', detail: { n: 3 + n } })));
    expect(calls.streamAppendManyAfter! - before).toBe(2);
    const exported = (await lines(mine.export('default'))).map((line) => JSON.parse(line) as { seq: number; detail: { n: number } });
    expect(exported.map((event) => event.detail.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(await mine.verify('default')).toMatchObject({ ok: true, events: 8, head: { seq: 7 } });
  });
});
