import { describe, expect, it } from 'vitest';
import { keys } from '../store/index.ts';
import { loadRequest } from './load-request.ts';
import { deadlineMember, trackDeadline, trackEscalation } from './request-deadlines.ts';
import { testRequest } from './request-fixture.ts';
import { toFields } from './request-fields.ts';
import { world } from './expiry-sweeper.test-support.ts';

/** The sweeper hands requests on along their escalation chain, even when sweeps fell behind. */
describe('createExpirySweeper', () => {
  it('hands on the requests whose escalation window passed, keeps each at its next step, and drops the rest', async () => {
    const w = world();
    const now = w.clock.now();
    const escalating = async (id: string, chain: { at: number; party: `role:${string}` }[]) => {
      const record = testRequest(id, now, 300, { escalation: chain, escalation_step: 0 });
      await w.store.hashCreate(keys.request(record.tenant, record.auth_req_id), toFields(record), 900);
      await trackDeadline(w.store, record, 1200);
      await trackEscalation(w.store, record, 1200);
      return record;
    };
    const two = await escalating('req_escalate_two_abcdefgh', [
      { at: now + 10_000, party: 'role:ops' },
      { at: now + 20_000, party: 'role:risk' },
    ]);
    // Its entry scored earlier than its step (as a sweep that overlapped another may leave it): kept and moved, not lost.
    const early = await escalating('req_escalate_early_abcdef', [{ at: now + 15_000, party: 'role:ops' }]);
    await w.store.sortedAdd(keys.escalations(), deadlineMember(early), now + 5000, 1200);
    // A request that is gone: its entry is dropped.
    await w.store.sortedAdd(keys.escalations(), 'default:req_escalate_gone_abcdefgh', now + 5000, 1200);
    const stepOf = async (id: string) => (await loadRequest(w.store, 'default', id))?.escalation_step;

    w.clock.advance(10);
    await w.sweeper.sweep();
    expect([await stepOf(two.auth_req_id), await stepOf(early.auth_req_id)]).toEqual([1, 0]);
    expect(await w.store.sortedRangeByScore(keys.escalations(), now + 10_000, 10)).toEqual([]);
    expect((await w.store.sortedRangeByScore(keys.escalations(), Number.POSITIVE_INFINITY, 10)).sort()).toEqual([deadlineMember(two), deadlineMember(early)].sort());
    expect(await w.store.sortedRangeByScore(keys.escalations(), now + 15_000, 10)).toEqual([deadlineMember(early)]);

    w.clock.advance(10);
    await w.sweeper.sweep();
    expect([await stepOf(two.auth_req_id), await stepOf(early.auth_req_id)]).toEqual([2, 1]);
    // Both at the last step of their chains: nothing left to hand on.
    expect(await w.store.sortedRangeByScore(keys.escalations(), Number.POSITIVE_INFINITY, 10)).toEqual([]);
    expect((await w.audit.forRequest('default', two.auth_req_id)).filter((event) => event.type === 'escalated').map((event) => event.detail)).toEqual([
      { from: 'customer', to: 'role:ops', step: 1 },
      { from: 'role:ops', to: 'role:risk', step: 2 },
    ]);
  });

  it('keeps walking the chain when the sweeps fell behind: a step already due is handed on at the next sweep, not lost', async () => {
    const w = world();
    const now = w.clock.now();
    const record = testRequest('req_escalate_behind_abcdef', now, 300, {
      escalation: [
        { at: now + 10_000, party: 'role:ops' },
        { at: now + 20_000, party: 'role:risk' },
      ],
      escalation_step: 0,
    });
    await w.store.hashCreate(keys.request(record.tenant, record.auth_req_id), toFields(record), 900);
    await trackDeadline(w.store, record, 1200);
    await trackEscalation(w.store, record, 1200);

    // No sweep ran while both windows passed (an outage): the first sweep hands it to ops only.
    w.clock.advance(25);
    await w.sweeper.sweep();
    expect((await loadRequest(w.store, 'default', record.auth_req_id))?.escalation_step).toBe(1);
    expect(await w.store.sortedRangeByScore(keys.escalations(), Number.POSITIVE_INFINITY, 10)).toEqual([deadlineMember(record)]);

    await w.sweeper.sweep();
    const after = await loadRequest(w.store, 'default', record.auth_req_id);
    expect([after?.escalation_step, after?.parties]).toEqual([2, ['role:risk']]);
    expect(await w.store.sortedRangeByScore(keys.escalations(), Number.POSITIVE_INFINITY, 10)).toEqual([]);
  });
});
