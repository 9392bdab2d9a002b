/** Shared limits (docs/security.md): one client may hold only its share of a user's pending places. */
import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { loadPolicy, parsePolicy } from '../../../server/src/policy/index.ts';
import { answer, shippedPolicy } from '../policy-support.ts';
import { useSharedLimits } from './support.ts';

describe('the pending share in the policy', () => {
  it('ships a share of 3 of a user’s 10 pending places', async () => {
    const policy = await loadPolicy();
    expect([policy.limits.max_pending_per_user, policy.limits.max_pending_per_client_user]).toEqual([10, 3]);
  });

  it('takes three tenths of the user’s places, rounded up, when the share is unset', () => {
    const policy = shippedPolicy();
    delete policy.limits.max_pending_per_client_user;
    expect(parsePolicy(policy).limits.max_pending_per_client_user).toBe(3);
    policy.limits.max_pending_per_user = 2;
    expect(parsePolicy(policy).limits.max_pending_per_client_user).toBe(1);
  });

  it('refuses a share larger than the user’s places', () => {
    const policy = shippedPolicy();
    policy.limits.max_pending_per_client_user = 11;
    expect(() => parsePolicy(policy, 'wide.json')).toThrow("invalid policy (wide.json):\n  limits.max_pending_per_client_user: must be at most max_pending_per_user (10): it is one client's share of a user's pending places");
  });
});

describe.each(['memory', 'redis'] as const)('one client cannot lock a person out of the others (%s store)', (storeKind) => {
  const ctx = useSharedLimits(storeKind);
  const { start, ask, idOf, refusal, stateOf } = ctx;

  it('holds one client to its share of a user’s pending places, and gives the share back as its requests are denied, expire or are approved', async () => {
    await start((p) => {
      p.limits.max_pending_per_user = 4;
      p.limits.max_pending_per_client_user = 3;
    });
    const expiring = await idOf(ask(ctx.a, 'a_1', 49_000, 60));
    const toDeny = await idOf(ask(ctx.a, 'a_2'));
    const toApprove = await idOf(ask(ctx.a, 'a_3'));
    expect(await refusal(ask(ctx.a, 'a_4'))).toEqual([429, 'too_many_pending', "This client already has 3 pending requests for this user, its share of the user's 4; wait for one to be decided."]);
    // A's refused request took no place of the user's: B gets the fourth.
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
    const c = await ctx.harness.createClient('Agent C');
    expect(await refusal(ask(c, 'c_1'))).toEqual([429, 'too_many_pending', 'This user already has 4 pending requests; wait for one to be decided.']);

    expect((await ctx.harness.decide(ctx.customer, toDeny, 'deny')).status).toBe(200);
    expect((await ask(ctx.a, 'a_4')).status).toBe(200);
    ctx.harness.clock.advance(60);
    await ctx.harness.deps.sweeper.sweep();
    expect(await stateOf(expiring)).toBe('expired');
    expect((await ask(ctx.a, 'a_5')).status).toBe(200);
    expect((await answer(ctx.harness, ctx.customer, toApprove, { decision: 'approve' })).status).toBe(200);
    expect((await ask(ctx.a, 'a_6')).status).toBe(200);
    const share = await ctx.harness.store.sortedWindowMembers(keys.clientPendingRequests('default', ctx.customer.sub, ctx.a.client_id), ctx.harness.clock.now(), 0);
    expect(share).toHaveLength(3);
  });
});
