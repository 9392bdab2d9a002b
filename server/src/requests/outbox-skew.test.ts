import { afterAll, describe, expect, inject, it } from 'vitest';
import { Background, ManualClock, silentLogger } from '../runtime/index.ts';
import { connectRedisStore, keys, type Store } from '../store/index.ts';
import { createLifecycle } from './lifecycle.ts';
import { createOutbox, type Consequences } from './outbox.ts';

/**
 * The swap's deadline is the instance's wall clock plus the command timeout, checked against
 * Redis's own `TIME` (docs/reliability.md "A swap cannot land after the reconciler looked"). An
 * instance whose clock runs behind Redis's by more than the command timeout (2 s) then has every
 * swap refused as late: no approval, denial or redemption succeeds on it, and nothing says why.
 */
describe('the outbox on an instance whose clock is behind Redis', () => {
  const stores: Store[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  // Not fixed on this branch (see the report): the deadline and the marks should be in Redis's time.
  it.fails('still applies a redemption when the instance is 2.5 s behind Redis', async () => {
    const store = await connectRedisStore(inject('redisUrl'), { prefix: `test:outbox-skew:${Math.random().toString(36).slice(2)}:` });
    stores.push(store);
    const clock = new ManualClock();
    const consequences = Object.fromEntries(['propose', 'approveParty', 'approve', 'deny', 'expire', 'issueToken', 'redeem', 'reportOutcome', 'flagOutcome'].map((op) => [op, { record: [] }])) as unknown as Consequences;
    const outbox = createOutbox(() => ({ store, clock, log: silentLogger, background: new Background(silentLogger) }), () => consequences, {
      swapDeadlineMs: 2000,
      reconcileAfterMs: 5000,
      wallClock: () => Date.now() - 2500,
      nonce: () => Math.random().toString(36).slice(2, 11),
    });
    const lifecycle = createLifecycle(outbox.swap, { approvalTokenTtl: 600, graceSeconds: 600, retentionSeconds: 3600 });
    const ref = { tenant: 'default', auth_req_id: 'req_skew_0123456789abcdef' };
    await store.hashCreate(keys.request(ref.tenant, ref.auth_req_id), { auth_req_id: ref.auth_req_id, tenant: 'default', state: 'approved', token_jti: 'jti_1', details_hash: 'h', approval_expires_at: String(clock.now() + 60_000) }, 600);
    const result = await lifecycle.redeem(ref, { jti: 'jti_1', details_hash: 'h', redemption_id: 'rdm_skew' }, clock.now());
    expect(result.ok).toBe(true);
  });
});
