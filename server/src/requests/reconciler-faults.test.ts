import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import { wireLifecycle } from '../consequences.ts';
import type { ClientNotifier, UserNotifier } from '../deps.ts';
import { EventBus } from '../events/index.ts';
import { createJobQueue } from '../jobs/index.ts';
import { Background, ManualClock, silentLogger } from '../runtime/index.ts';
import { keys, MemoryStore } from '../store/index.ts';
import { createExpirySweeper } from './expiry-sweeper.ts';
import { testRequest } from './request-fixture.ts';
import { outboxOf } from './lifecycle.ts';
import { loadRequest } from './load-request.ts';
import { trackDeadline } from './request-deadlines.ts';
import { toFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

/**
 * The reconciler when a consequence keeps failing (docs/reliability.md "What follows a transition"):
 * one request whose entry cannot be delivered must neither stop the sweep (expiries, outcome flags,
 * the audit retention of every tenant) nor hold back the other due marks.
 */
function world(options: { batchSize?: number } = {}) {
  const clock = new ManualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  /** Requests whose client notification fails (a jobs master down, say), and how often more. */
  const failing = new Map<string, number>();
  const notifier: ClientNotifier = {
    requestSettled: async (request) => {
      const left = failing.get(request.auth_req_id) ?? 0;
      if (left > 0) {
        failing.set(request.auth_req_id, left - 1);
        throw new Error('the job queue is unavailable');
      }
    },
  };
  const push: UserNotifier = { notifyUser: async () => ({ sent: 1, removed: 0, failed: 0 }) };
  const config = loadConfig({ NODE_ENV: 'test' });
  const audit = createAuditLog(store, clock, 3600);
  const background = new Background(silentLogger);
  const jobs = createJobQueue({ store, clock, log: silentLogger, background, consumer: 'test', consume: false, handlers: { expiry_push: async () => 'skipped', request_push: async () => 'skipped', client_notification: async () => 'skipped', mandate_receipt: async () => 'skipped' } });
  const base = { store, clock, config, notifier, push, background, audit, events: new EventBus(), log: silentLogger, jobs };
  const deps = { ...base, ...wireLifecycle(() => base, config, { swapDeadlineMs: 2000, reconcileAfterMs: 5000, ...(options.batchSize ? { batchSize: options.batchSize } : {}) }) };
  const sweeper = createExpirySweeper(() => deps, {});

  let count = 0;
  async function pending(expiresInSeconds: number): Promise<ApprovalRequest> {
    count += 1;
    const now = clock.now();
    const record = testRequest(`req_${String(count).padStart(6, '0')}_faultsfaults`, now, expiresInSeconds);
    await store.hashCreate(keys.request(record.tenant, record.auth_req_id), toFields(record), expiresInSeconds + 600);
    await trackDeadline(store, record, 1200);
    return record;
  }

  /** Approves `request` while its client notification fails `failures` times: the entry stays, with its mark. */
  async function approveFailing(request: ApprovalRequest, failures: number): Promise<void> {
    failing.set(request.auth_req_id, failures);
    const fields = (await store.hashGet(keys.request(request.tenant, request.auth_req_id)))!;
    const result = await deps.lifecycle.approve(fields, { party: 'customer', sub: 'alice', device_id: 'dev_1', credential_id: 'cred_1' }, clock.now());
    expect(result.ok).toBe(true);
    await background.drain();
  }

  const entriesOf = async (request: ApprovalRequest) => outboxOf((await store.hashGet(keys.request(request.tenant, request.auth_req_id))) ?? {});
  return { clock, store, sweeper, pending, approveFailing, entriesOf };
}

describe('the reconciler with a consequence that keeps failing', () => {
  it('still lets the sweep expire the other requests', async () => {
    const w = world();
    const poisoned = await w.pending(300);
    await w.approveFailing(poisoned, Number.POSITIVE_INFINITY);
    const overdue = await w.pending(1);
    w.clock.advance(6);

    await w.sweeper.sweep().catch(() => undefined);
    // The request whose deadline passed is expired, whatever the other request's entry does.
    expect((await loadRequest(w.store, 'default', overdue.auth_req_id))?.state).toBe('expired');
    expect(await w.entriesOf(poisoned)).toHaveLength(1);
  });

  it('does not hold back the marks due after a full batch of failing ones', async () => {
    const w = world({ batchSize: 2 });
    const stuck = [await w.pending(300), await w.pending(300)];
    for (const request of stuck) {
      await w.approveFailing(request, Number.POSITIVE_INFINITY);
      w.clock.advance(0.001);
    }
    // Its notification fails once only: the reconciler's first try delivers it.
    const healthy = await w.pending(300);
    await w.approveFailing(healthy, 1);
    expect(await w.entriesOf(healthy)).toHaveLength(1);

    for (let tick = 0; tick < 5; tick++) {
      w.clock.advance(6);
      await w.sweeper.sweep().catch(() => undefined);
    }
    expect(await w.entriesOf(healthy)).toEqual([]);
    const marks = await w.store.sortedRangeByScore(keys.outboxDue(), Number.MAX_SAFE_INTEGER, 100);
    expect(marks.filter((mark) => mark.includes(healthy.auth_req_id))).toEqual([]);
  });
});
