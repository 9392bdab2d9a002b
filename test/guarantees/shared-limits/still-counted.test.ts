/** Shared limits (docs/security.md): a denied request still counts in its own client's window, and a redeemed one keeps counting for the user. */
import { keys } from '@countersign/server';
import { createAgentClient } from '@countersign/agent';
import { describe, expect, it } from 'vitest';
import { answer, pay, pollToken } from '../policy-support.ts';
import { USER_EUR_LIMIT, useSharedLimits } from './support.ts';

describe.each(['memory', 'redis'] as const)('one client cannot lock a person out of the others (%s store)', (storeKind) => {
  const ctx = useSharedLimits(storeKind);
  const { start, ask, idOf, userWindow, refusal, lockedOut, stateOf } = ctx;

  it('keeps counting a denied request against its own client: the client over its window stays refused while others are accepted', async () => {
    await start((p) => {
      p.limits.velocity.per_client.max_amount_minor = { EUR: USER_EUR_LIMIT };
    });
    const large = await idOf(ask(ctx.a, 'a_1', USER_EUR_LIMIT));
    expect((await ctx.harness.decide(ctx.customer, large, 'deny')).status).toBe(200);
    expect(await refusal(ask(ctx.a, 'a_2'))).toEqual([429, 'velocity_exceeded', 'Too many requests, or too much money, from this client within 3600 seconds.']);
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
  });

  it('keeps counting a redeemed request (money moved), even after its approval’s deadline, while a denied one beside it is given back', async () => {
    await start();
    const denied = await idOf(ask(ctx.a, 'a_1', USER_EUR_LIMIT / 2));
    const redeemed = await idOf(ask(ctx.a, 'a_2', USER_EUR_LIMIT / 2));
    expect(await refusal(ask(ctx.b, 'b_1'))).toEqual(lockedOut);
    expect((await ctx.harness.decide(ctx.customer, denied, 'deny')).status).toBe(200);
    expect((await answer(ctx.harness, ctx.customer, redeemed, { decision: 'approve' })).status).toBe(200);
    const token = await pollToken(ctx.harness, ctx.a, redeemed);
    const agent = createAgentClient({ issuer: ctx.harness.issuer, clientId: ctx.a.client_id, clientSecret: ctx.a.client_secret, fetch: ctx.harness.fetch });
    expect((await agent.redeem(token.body.access_token, pay('a_2', USER_EUR_LIMIT / 2))).status).toBe('redeemed');

    // The denied half is free again; the redeemed half is not.
    expect((await ask(ctx.b, 'b_1', USER_EUR_LIMIT / 2)).status).toBe(200);
    expect(await refusal(ask(ctx.b, 'b_2', 1))).toEqual(lockedOut);
    // Redeemed, it left the expiry index: no sweep can expire it and give it back.
    expect(await ctx.harness.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 10)).not.toContain(`default:${redeemed}`);
    ctx.harness.clock.advance(ctx.harness.deps.config.approvalTokenTtl);
    await ctx.harness.deps.sweeper.sweep();
    expect(await stateOf(redeemed)).toBe('redeemed');
    // B's request expired meanwhile and was given back; the redeemed one still counts.
    expect(await userWindow()).toEqual({ count: 1, totals: { EUR: USER_EUR_LIMIT / 2 } });
    expect(await refusal(ask(ctx.b, 'b_2', USER_EUR_LIMIT / 2 + 1))).toEqual(lockedOut);
  });
});
