/** Shared limits (docs/security.md): a request that ends unused (denied, "this wasn't me", expired) gives back its places in the user's limits. */
import { keys, velocityMemberOf, type Store } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { answer, pollToken } from '../policy-support.ts';
import { USER_EUR_LIMIT, useSharedLimits } from './support.ts';

describe.each(['memory', 'redis'] as const)('one client cannot lock a person out of the others (%s store)', (storeKind) => {
  const ctx = useSharedLimits(storeKind);
  const { start, ask, idOf, windowOf, userWindow, refusal, lockedOut, stateOf } = ctx;

  it('gives back a denied request’s amount in the user’s window, so another client is accepted; the denied client’s own window keeps it', async () => {
    await start();
    const large = await idOf(ask(ctx.a, 'a_1', USER_EUR_LIMIT));
    expect(await refusal(ask(ctx.b, 'b_1'))).toEqual(lockedOut);

    expect((await ctx.harness.decide(ctx.customer, large, 'deny')).status).toBe(200);
    expect(await userWindow()).toEqual({ count: 0, totals: {} });
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
    expect(await userWindow()).toEqual({ count: 1, totals: { EUR: 49_000 } });
    // A's budget is A's: being denied gives it nothing back.
    expect(await windowOf('velocity-client', ctx.a.client_id)).toEqual({ count: 1, totals: { EUR: USER_EUR_LIMIT } });
  });

  it('gives back an expired request’s amount once the sweeper expires it, so another client is accepted', async () => {
    await start();
    const large = await idOf(ask(ctx.a, 'a_1', USER_EUR_LIMIT, 60));
    expect(await refusal(ask(ctx.b, 'b_1'))).toEqual(lockedOut);
    ctx.harness.clock.advance(60);
    expect(await ctx.harness.deps.sweeper.sweep()).toBe(1);
    expect(await stateOf(large)).toBe('expired');
    expect(await userWindow()).toEqual({ count: 0, totals: {} });
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
  });

  it('gives back an approval that ran out unredeemed once the sweeper expires it, though its client never looked again', async () => {
    await start();
    const large = await idOf(ask(ctx.a, 'a_1', USER_EUR_LIMIT));
    expect((await answer(ctx.harness, ctx.customer, large, { decision: 'approve' })).status).toBe(200);
    expect((await pollToken(ctx.harness, ctx.a, large)).status).toBe(200);
    expect(await refusal(ask(ctx.b, 'b_1'))).toEqual(lockedOut);

    ctx.harness.clock.advance(ctx.harness.deps.config.approvalTokenTtl - 1);
    expect(await ctx.harness.deps.sweeper.sweep()).toBe(0);
    expect(await refusal(ask(ctx.b, 'b_1'))).toEqual(lockedOut);
    ctx.harness.clock.advance(1);
    expect(await ctx.harness.deps.sweeper.sweep()).toBe(1);
    expect(await stateOf(large)).toBe('expired');
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
  });

  it('gives back exactly once, this request’s entry only, when two instances’ sweepers and polls race to expire it', async () => {
    await start();
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
    const large = await idOf(ask(ctx.a, 'a_1', 4_000_000, 60));
    const second = await ctx.harness.instance();
    ctx.others.push(second);
    const userKey = keys.window('default', 'velocity-user', ctx.customer.sub);
    const takenBack: string[] = [];
    // One wrapper per store object: on memory both instances share one.
    for (const store of new Set<Store>([ctx.harness.store, second.store])) {
      const windowRemove = store.windowRemove.bind(store);
      store.windowRemove = async (key, member) => {
        if (key === userKey) takenBack.push(member);
        return windowRemove(key, member);
      };
    }
    ctx.harness.clock.advance(60);
    const polls = await Promise.all([ctx.harness.deps.sweeper.sweep(), second.deps.sweeper.sweep(), pollToken(ctx.harness, ctx.a, large), pollToken(second, ctx.a, large)]);
    expect([polls[2].body.error, polls[3].body.error]).toEqual(['expired_token', 'expired_token']);
    expect(takenBack).toEqual([velocityMemberOf(large)]);
    // B's entry stays: only the expired request's came out.
    expect(await userWindow()).toEqual({ count: 1, totals: { EUR: 49_000 } });
  });

  it('gives back the amount of a request reported as "this wasn’t me", so another client is accepted', async () => {
    await start();
    const large = await idOf(ask(ctx.a, 'a_1', USER_EUR_LIMIT));
    expect(await refusal(ask(ctx.b, 'b_1'))).toEqual(lockedOut);
    const reported = await answer(ctx.harness, ctx.customer, large, { decision: 'deny', path: 'report' });
    expect([reported.status, reported.body.request.state]).toEqual([200, 'denied']);
    expect(await userWindow()).toEqual({ count: 0, totals: {} });
    expect((await ask(ctx.b, 'b_1')).status).toBe(200);
  });
});
