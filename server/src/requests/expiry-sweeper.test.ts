import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import type { ClientNotifier, UserNotifier } from '../deps.ts';
import { EventBus } from '../events/index.ts';
import { createJobQueue } from '../jobs/index.ts';
import { wireLifecycle } from '../consequences.ts';
import { Background, ManualClock, silentLogger, type Logger, type Ticker } from '../runtime/index.ts';
import { keys, MemoryStore } from '../store/index.ts';
import { sendExpiryNotice } from './announce-expiry.ts';
import { createExpirySweeper } from './expiry-sweeper.ts';
import { loadRequest } from './load-request.ts';
import { trackOutcomeDeadline } from './outcome-deadlines.ts';
import { deadlineMember, trackDeadline, trackEscalation } from './request-deadlines.ts';
import { testRequest } from './request-fixture.ts';
import { toFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

/** A sweeper on a memory store with a manual clock, counting the request records it reads. */
function world(options: { batchSize?: number; ticker?: Ticker; log?: Logger } = {}) {
  const clock = new ManualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  const reads: string[] = [];
  const hashGet = store.hashGet.bind(store);
  store.hashGet = async (key) => {
    if (key.startsWith('req:')) reads.push(key);
    return hashGet(key);
  };
  const settled: string[] = [];
  const notifier: ClientNotifier = { requestSettled: async (request) => void settled.push(request.auth_req_id) };
  const pushed: { auth_req_id: string; kind: string | undefined; summary: string; ttlSeconds: number }[] = [];
  const push: UserNotifier = {
    notifyUser: async (input) => {
      pushed.push({ auth_req_id: input.auth_req_id, kind: input.kind, summary: input.summary, ttlSeconds: input.ttlSeconds });
      return { sent: 1, removed: 0, failed: 0 };
    },
  };
  const config = loadConfig({ NODE_ENV: 'test', OUTCOME_TIMEOUT: '60' });
  const audit = createAuditLog(store, clock, 3600);
  const background = new Background(silentLogger);
  // The expiry notice is a job of the queue on this store, run when a test drains it.
  const jobs = createJobQueue({ store, clock, log: silentLogger, background, consumer: 'test', consume: false, handlers: { expiry_push: (job) => sendExpiryNotice(deps, job), request_push: async () => 'skipped', client_notification: async () => 'skipped', mandate_receipt: async () => 'skipped' } });
  const log = options.log ?? silentLogger;
  const base = { store, clock, config, notifier, push, background, audit, events: new EventBus(), log, jobs };
  const deps = { ...base, ...wireLifecycle(() => base, config, { swapDeadlineMs: 2000, reconcileAfterMs: 5000 }) };
  const sweeper = createExpirySweeper(() => deps, { batchSize: options.batchSize ?? 100, ...(options.ticker ? { ticker: options.ticker } : {}) });

  let count = 0;
  async function request(expiresInSeconds: number, state: ApprovalRequest['state'] = 'pending'): Promise<ApprovalRequest> {
    count += 1;
    const now = clock.now();
    const record = testRequest(`req_${String(count).padStart(6, '0')}_abcdefghijkl`, now, expiresInSeconds, { state });
    await store.hashCreate(keys.request(record.tenant, record.auth_req_id), toFields(record), expiresInSeconds + 600);
    await trackDeadline(store, record, 1200);
    return record;
  }
  return { clock, store, reads, settled, pushed, audit, background, sweeper, request, jobs };
}

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

  it('reads batch after batch until one comes back short', async () => {
    const w = world({ batchSize: 2 });
    for (let i = 0; i < 5; i++) await w.request(1);
    w.clock.advance(1);
    expect(await w.sweeper.sweep()).toBe(5);
    expect(w.settled).toHaveLength(5);
  });

  it('drops the entries of requests that are gone or were decided, telling nobody', async () => {
    const w = world();
    const gone = await w.request(5);
    await w.store.delete(keys.request(gone.tenant, gone.auth_req_id));
    await w.request(5, 'denied');
    w.clock.advance(5);
    expect(await w.sweeper.sweep()).toBe(2);
    expect(w.settled).toEqual([]);
    expect(await w.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 10)).toEqual([]);
  });

  it('joins a sweep that is already running instead of starting a second one', async () => {
    const w = world();
    await w.request(1);
    w.clock.advance(1);
    const [first, second] = [w.sweeper.sweep(), w.sweeper.sweep()];
    expect(second).toBe(first);
    expect(await first).toBe(1);
    expect(w.settled).toHaveLength(1);
  });

  it('sweeps on every tick between start and stop, and logs a failed sweep', async () => {
    let tick: (() => void) | null = null;
    let everyMs = 0;
    const ticker: Ticker = (next, ms) => {
      [tick, everyMs] = [next, ms];
      return () => {
        tick = null;
      };
    };
    const errors: string[] = [];
    const w = world({ ticker, log: { ...silentLogger, error: (message) => void errors.push(message) } });
    w.sweeper.start();
    w.sweeper.start();
    expect(everyMs).toBe(1000);
    await w.request(1);
    w.clock.advance(1);
    tick!();
    await w.sweeper.sweep();
    expect(w.settled).toHaveLength(1);

    w.store.sortedRangeByScore = async () => {
      throw new Error('store down');
    };
    tick!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual(['expiry sweep failed']);

    w.sweeper.stop();
    expect(tick).toBeNull();
  });

  it('runs the audit retention in the first sweep, then once per minute of the clock, and a failed one fails no sweep', async () => {
    const errors: string[] = [];
    const w = world({ log: { ...silentLogger, error: (message) => void errors.push(message) } });
    let trims = 0;
    w.audit.trim = async () => {
      trims += 1;
      if (trims === 2) throw new Error('store down');
      return [];
    };
    await w.sweeper.sweep();
    await w.sweeper.sweep();
    expect(trims).toBe(1);
    w.clock.advance(60);
    await w.request(0);
    expect(await w.sweeper.sweep()).toBe(1);
    expect(trims).toBe(2);
    expect(errors).toEqual(['audit retention failed']);
  });
});
