import { describe, expect, it } from 'vitest';
import { keys } from '../store/index.ts';
import { createAuditLog } from './audit-log.ts';
import { counting, ID, world } from './audit-log.test-support.ts';

/** How events are stored: once, with the request's view as chain ids in the same script call; a failed append indexes nothing. */
describe('createAuditLog', () => {
  it('stores each event once: the request view is the chain ids, appended in the same script call', async () => {
    const { clock, store } = world();
    const { counted, calls } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    await Promise.all([ID, 'req_other', ID].map((id, n) => audit.record({ type: 'viewed', tenant: 'default', auth_req_id: id, channel: 'device', detail: { n } })));
    await audit.record({ type: 'refused', tenant: 'default', channel: 'agent' });
    expect(calls.streamAppendManyAfter).toBe(2);
    // And the tenant's registration for the retention, once per process.
    expect(calls.setAdd).toBe(1);
    expect(Object.keys(calls).sort()).toEqual(['setAdd', 'streamAppendManyAfter']);
    const chain = await store.streamRange(keys.auditChain('default'));
    expect(await store.streamIndexRead(keys.requestAuditIndex('default', ID))).toEqual([chain[0]!.id, chain[2]!.id]);
    expect(await store.streamIndexRead(keys.requestAuditIndex('default', 'req_other'))).toEqual([chain[1]!.id]);
    const view = await audit.forRequest('default', ID);
    expect(view.map((event) => [event.seq, event.id, event.detail?.n])).toEqual([
      [0, chain[0]!.id, 0],
      [2, chain[2]!.id, 2],
    ]);
    expect(await audit.forRequest('default', 'req_none')).toEqual([]);
  });

  it('a failed append rejects its callers and indexes none of its events', async () => {
    const { clock, store } = world();
    const { counted, failNext } = counting(store);
    const audit = createAuditLog(counted, clock, 3600);
    failNext('streamAppendManyAfter');
    const results = await Promise.allSettled([ID, 'req_other'].map((id) => audit.record({ type: 'viewed', tenant: 'default', auth_req_id: id, channel: 'device' })));
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected']);
    expect(await audit.forRequest('default', ID)).toEqual([]);
    await audit.record({ type: 'viewed', tenant: 'default', auth_req_id: ID, channel: 'device' });
    expect((await audit.forRequest('default', ID)).map((event) => event.seq)).toEqual([0]);
    expect(await audit.verify('default')).toMatchObject({ ok: true, events: 1 });
  });
});
