import { describe, expect, it } from 'vitest';
import { keys } from '../store/index.ts';
import { loadRequest } from './load-request.ts';
import { trackOutcomeDeadline } from './outcome-deadlines.ts';
import { world } from './expiry-sweeper.test-support.ts';

/** Past a deadline: requests settled and their person told, a missing outcome flagged once, an approval kept to its own deadline. */
describe('createExpirySweeper', () => {
  it('settles the requests past their deadline and reads none of the 1000 still alive', async () => {
    const w = world();
    const due = [await w.request(10), await w.request(20), await w.request(30)];
    for (let i = 0; i < 1000; i++) await w.request(300);
    w.clock.advance(30);

    expect(await w.sweeper.sweep()).toBe(3);
    expect(w.reads).toHaveLength(3);
    expect(w.settled).toEqual(due.map((request) => request.auth_req_id));
    for (const request of due) expect((await loadRequest(w.store, 'default', request.auth_req_id))?.state).toBe('expired');
    expect(await w.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 2000)).toHaveLength(1000);

    w.reads.length = 0;
    expect(await w.sweeper.sweep()).toBe(0);
    expect(w.reads).toEqual([]);
  });

  it('pushes a request_expired notice to the person for each request it expires, and audits it', async () => {
    const w = world();
    const due = await w.request(10);
    w.clock.advance(10);
    await w.sweeper.sweep();
    await w.background.drain();
    await w.jobs.drain();
    expect(w.pushed).toEqual([{ auth_req_id: due.auth_req_id, kind: 'request_expired', summary: 'Expired, nothing was done. Test', ttlSeconds: 600 }]);
    const events = await w.audit.forRequest('default', due.auth_req_id);
    expect(events.map((event) => [event.type, event.detail])).toEqual([
      ['expired', { from: 'pending' }],
      ['pushed', { kind: 'request_expired', sent: 1, removed: 0, failed: 0 }],
    ]);
  });

  it('flags a redemption with no outcome after OUTCOME_TIMEOUT once, however often it is swept', async () => {
    const w = world();
    const redeemed = await w.request(300, 'redeemed');
    const key = keys.request(redeemed.tenant, redeemed.auth_req_id);
    await w.store.hashSet(key, { redemption_id: 'rdm_0123456789', redeemed_at: String(w.clock.now()), outcome_status: 'unknown' });
    await trackOutcomeDeadline(w.store, redeemed, w.clock.now() + 60_000, 3600);
    w.clock.advance(59);
    expect(await w.sweeper.sweep()).toBe(0);
    w.clock.advance(1);
    expect(await w.sweeper.sweep()).toBe(1);
    // Another instance still holding the entry sweeps it again: the compare-and-swap flags once.
    await trackOutcomeDeadline(w.store, redeemed, w.clock.now(), 3600);
    expect(await w.sweeper.sweep()).toBe(1);
    const flags = (await w.audit.forRequest('default', redeemed.auth_req_id)).filter((event) => event.type === 'outcome_unknown');
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ channel: 'system', client_id: 'cli_test', sub: 'alice', detail: { redemption_id: 'rdm_0123456789', seconds_since_redeemed: 60 } });
    expect((await w.store.hashGet(key))?.outcome_status).toBe('unknown');
    expect(await w.store.sortedRangeByScore(keys.outcomeDeadlines(), Number.POSITIVE_INFINITY, 10)).toEqual([]);
  });

  it('moves an approval it finds under the decision deadline to the approval’s deadline, and expires it then', async () => {
    const w = world();
    // Approved just before its decision deadline, while a sweep read the index: the entry still has the old score.
    const approved = await w.request(10, 'approved');
    const key = keys.request(approved.tenant, approved.auth_req_id);
    await w.store.hashSet(key, { approval_expires_at: String(w.clock.now() + 60_000) });
    w.clock.advance(10);
    expect(await w.sweeper.sweep()).toBe(1);
    expect((await loadRequest(w.store, 'default', approved.auth_req_id))?.state).toBe('approved');
    expect(await w.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 10)).toEqual([`default:${approved.auth_req_id}`]);
    w.clock.advance(49);
    expect(await w.sweeper.sweep()).toBe(0);
    w.clock.advance(1);
    expect(await w.sweeper.sweep()).toBe(1);
    expect((await loadRequest(w.store, 'default', approved.auth_req_id))?.state).toBe('expired');
    expect((await w.audit.forRequest('default', approved.auth_req_id)).map((event) => [event.type, event.detail])).toEqual([['expired', { from: 'approved' }]]);
    expect(await w.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 10)).toEqual([]);
  });
});
