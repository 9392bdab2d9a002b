import { describe, expect, it } from 'vitest';
import { createAuditLog } from '../audit/index.ts';
import { loadConfig } from '../config/index.ts';
import type { ClientNotifier } from '../deps.ts';
import { EventBus } from '../events/index.ts';
import { ManualClock, silentLogger, type Logger } from '../runtime/index.ts';
import { keys, MemoryStore } from '../store/index.ts';
import { createExpirySweeper, type Ticker } from './expiry-sweeper.ts';
import { loadRequest } from './load-request.ts';
import { trackDeadline } from './request-deadlines.ts';
import { toFields, type ApprovalRequest } from './request-record.ts';

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
  const notifier: ClientNotifier = { requestSettled: (request) => void settled.push(request.auth_req_id) };
  const config = loadConfig({ NODE_ENV: 'test' });
  const deps = { store, clock, config, notifier, audit: createAuditLog(store, clock, 3600), events: new EventBus(), log: options.log ?? silentLogger };
  const sweeper = createExpirySweeper(() => deps, { batchSize: options.batchSize ?? 100, ...(options.ticker ? { ticker: options.ticker } : {}) });

  let count = 0;
  async function request(expiresInSeconds: number, state: ApprovalRequest['state'] = 'pending'): Promise<ApprovalRequest> {
    count += 1;
    const now = clock.now();
    const record: ApprovalRequest = {
      auth_req_id: `req_${String(count).padStart(6, '0')}_abcdefghijkl`,
      tenant: 'default',
      client_id: 'cli_test',
      client_name: 'Test',
      sub: 'alice',
      scope: 'openid',
      binding_message: null,
      authorization_details: [],
      details_hash: 'hash',
      state,
      created_at: now,
      expires_at: now + expiresInSeconds * 1000,
      interval: 5,
      token_delivery_mode: 'ping',
      outcome: null,
    };
    await store.hashCreate(keys.request(record.tenant, record.auth_req_id), toFields(record), expiresInSeconds + 600);
    await trackDeadline(store, record, 1200);
    return record;
  }
  return { clock, store, reads, settled, sweeper, request };
}

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
});
