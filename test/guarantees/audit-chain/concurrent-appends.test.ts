/** The audit trail (docs/design.md guarantee 9, docs/audit.md): instances and concurrent records appending to one tenant at once never fork the chain. */
import { describe, expect, it } from 'vitest';
import { createAuditLog, type StoredAuditEvent } from '../../../server/src/audit/index.ts';
import { counting } from '../../../server/src/audit/audit-log.test-support.ts';
import { OffsetClock } from '../../../server/src/runtime/index.ts';
import { testPrefix, testRedisStore } from '../../support/redis.ts';

describe('several instances appending to one tenant on Redis at once', () => {
  it('never fork the chain: four instances, 100 events, seq 0 to 99, one link each', async () => {
    const prefix = testPrefix();
    const stores = await Promise.all([1, 2, 3, 4].map(() => testRedisStore({ prefix })));
    try {
      const clock = new OffsetClock();
      const instances = stores.map((store) => createAuditLog(store, clock, 3600));
      await Promise.all(Array.from({ length: 100 }, (_, n) => instances[n % 4]!.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', channel: 'agent', detail: { n } })));
      const report = await instances[0]!.verify('default');
      expect(report).toMatchObject({ ok: true, events: 100, head: { seq: 99 } });
      const lines: string[] = [];
      for await (const line of instances[1]!.export('default')) lines.push(line);
      const written = lines.map((line) => (JSON.parse(line) as StoredAuditEvent).detail!.n);
      expect([...written].sort((a, b) => Number(a) - Number(b))).toEqual(Array.from({ length: 100 }, (_, n) => n));
    } finally {
      await Promise.all(stores.map((store) => store.close()));
    }
  });
});

describe('group commit: one instance appending many events to one tenant on Redis at once', () => {
  it('lands 200 concurrent records in a few script calls, in call order, and the chain verifies', async () => {
    const store = await testRedisStore();
    try {
      // Counts the store's calls by method, so the number of script calls (round trips) shows.
      const { counted, calls } = counting(store);
      const audit = createAuditLog(counted, new OffsetClock(), 3600);
      await Promise.all(Array.from({ length: 200 }, (_, n) => audit.record({ type: 'refused', reason: 'invalid_request', tenant: 'default', auth_req_id: `req_${n % 8}`, channel: 'agent', detail: { n } })));
      expect(calls.streamAppendAfter ?? 0).toBe(0);
      expect(calls.streamAppendManyAfter).toBeGreaterThan(0);
      expect(calls.streamAppendManyAfter).toBeLessThanOrEqual(4);
      // Each event is stored once: the per-request views are indexed by the same script calls.
      expect(calls.listAppend ?? 0).toBe(0);
      expect(await audit.verify('default')).toMatchObject({ ok: true, events: 200, head: { seq: 199 } });
      const lines: string[] = [];
      for await (const line of audit.export('default')) lines.push(line);
      expect(lines.map((line) => (JSON.parse(line) as StoredAuditEvent).detail!.n)).toEqual(Array.from({ length: 200 }, (_, n) => n));
      expect((await audit.forRequest('default', 'req_3')).map((event) => event.detail!.n)).toEqual(Array.from({ length: 25 }, (_, i) => i * 8 + 3));
    } finally {
      await store.close();
    }
  });
});
