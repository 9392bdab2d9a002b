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
import { trackDeadline } from './request-deadlines.ts';
import { testRequest } from './request-fixture.ts';
import { toFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

// What the expiry-sweeper-*.test.ts files share: a sweeper wired as the server wires it, on a
// memory store and a manual clock. Test code only.

/** A sweeper on a memory store with a manual clock, counting the request records it reads. */
export function world(options: { batchSize?: number; ticker?: Ticker; log?: Logger } = {}) {
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
