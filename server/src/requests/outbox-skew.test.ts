import { afterAll, describe, expect, inject, it } from 'vitest';
import { setTimeout as sleep } from 'node:timers/promises';
import { Background, ManualClock, silentLogger, systemClock } from '../runtime/index.ts';
import { connectRedisStore, keys, type Store } from '../store/index.ts';
import { createLifecycle } from './lifecycle.ts';
import { createOutbox, type Consequences } from './outbox.ts';
import { createStoreClock } from './store-clock.ts';
import { toFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

/**
 * The swap's deadline is checked against Redis's own `TIME` (docs/reliability.md "A swap cannot
 * land after the reconciler looked"), so it is stated in the store's clock (`createStoreClock`):
 * an instance whose own clock runs behind Redis's by more than the command timeout (2 s) would
 * otherwise have every swap refused as late, and no approval, denial or redemption succeed on it.
 */
describe('the outbox on an instance whose clock is behind Redis', () => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it('still applies a redemption when the instance is 2.5 s behind Redis: the deadline is stated in the store clock', async () => {
    const store = await connectRedisStore(inject('redisUrl'), { prefix: `test:outbox-skew:${Math.random().toString(36).slice(2)}:` });
    stores.push(store);
    const clock = new ManualClock();
    const consequences = Object.fromEntries(['propose', 'approveParty', 'approve', 'deny', 'expire', 'issueToken', 'redeem', 'reportOutcome', 'flagOutcome'].map((op) => [op, { record: [] }])) as unknown as Consequences;
    const outbox = createOutbox(
      () => ({ store, clock, log: silentLogger, background: new Background(silentLogger) }),
      () => consequences,
      {
        swapDeadlineMs: 2000,
        reconcileAfterMs: 5000,
        wallClock: (await createStoreClock(store, silentLogger, () => Date.now() - 2500)).now,
        nonce: () => Math.random().toString(36).slice(2, 11),
      },
    );
    const lifecycle = createLifecycle(outbox.swap, { approvalTokenTtl: 600, graceSeconds: 600, retentionSeconds: 3600 });
    const ref = { tenant: 'default', auth_req_id: 'req_skew_0123456789abcdef' };
    await store.hashCreate(
      keys.request(ref.tenant, ref.auth_req_id),
      {
        auth_req_id: ref.auth_req_id,
        tenant: 'default',
        client_id: 'cli_test',
        client_name: 'Test',
        sub: 'alice',
        authorization_details: '[]',
        created_at: String(clock.now()),
        expires_at: String(clock.now() + 60_000),
        interval: '5',
        state: 'approved',
        token_jti: 'jti_1',
        details_hash: 'h',
        approval_expires_at: String(clock.now() + 60_000),
      },
      600,
    );
    const result = await lifecycle.redeem(ref, { jti: 'jti_1', details_hash: 'h', redemption_id: 'rdm_skew' }, clock.now());
    expect(result.ok).toBe(true);
  });

  it('keeps the whole margin between a swap’s deadline and its mark’s due time when the mark was slow', async () => {
    const store = await connectRedisStore(inject('redisUrl'), { prefix: `test:outbox-skew:${Math.random().toString(36).slice(2)}:` });
    stores.push(store);
    // The mark waits 1.5 s (behind a slow pipeline, within the request's deadline) before it lands.
    const seen: { markDueAt?: number; notAfterMs?: number } = {};
    const sortedAdd = store.sortedAdd.bind(store);
    store.sortedAdd = async (key, member, score, ttl) => {
      seen.markDueAt = score;
      await sleep(1500);
      return sortedAdd(key, member, score, ttl);
    };
    const compareAndSet = store.compareAndSet.bind(store);
    store.compareAndSet = async (key, guards, set, options) => {
      seen.notAfterMs = options?.notAfterMs;
      return compareAndSet(key, guards, set, options);
    };
    const consequences = Object.fromEntries(['propose', 'approveParty', 'approve', 'deny', 'expire', 'issueToken', 'redeem', 'reportOutcome', 'flagOutcome'].map((op) => [op, { record: [] }])) as unknown as Consequences;
    const outbox = createOutbox(
      () => ({ store, clock: systemClock, log: silentLogger, background: new Background(silentLogger) }),
      () => consequences,
      {
        swapDeadlineMs: 2000,
        reconcileAfterMs: 5000,
        nonce: () => Math.random().toString(36).slice(2, 11),
      },
    );
    const ref = { tenant: 'default', auth_req_id: 'req_slowmark_0123456789ab' };
    const now = Date.now();
    const request: ApprovalRequest = { ...ref, client_id: 'cli_test', client_name: 'Test', sub: 'alice', scope: 'openid', binding_message: null, authorization_details: [], details_hash: 'h', state: 'pending', created_at: now, expires_at: now + 60_000, interval: 5, token_delivery_mode: 'poll', outcome: null };
    await store.hashCreate(keys.request(ref.tenant, ref.auth_req_id), toFields(request), 600);
    await outbox.swap(ref, [{ field: 'state', op: 'eq', value: 'pending' }], { state: 'denied' }, { op: 'expire', at: Date.now(), from: 'pending' });
    // The skew the reconciler tolerates is this margin: 3 s, not 3 s less the mark's wait.
    expect(seen.markDueAt! - seen.notAfterMs!).toBeGreaterThanOrEqual(2990);
  });
});
