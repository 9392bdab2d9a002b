/** Push fatigue (docs/guarantees.md): the pending limit and the push rate. */
import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { answer, bcAuthorize, pay } from '../policy-support.ts';
import { usePushFatigue } from './support.ts';

describe.each(['memory', 'redis'] as const)('push fatigue (%s store)', (storeKind) => {
  const ctx = usePushFatigue(storeKind);
  const { start, ask, inbox } = ctx;

  it('refuses a request over the pending limit with 429 too_many_pending before any push; a decided or expired one frees its place', async () => {
    await start((policy) => {
      policy.limits.max_pending_per_user = 2;
    });
    const first = (await ask('txn_1')).body.auth_req_id;
    const second = (await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_2'), requested_expiry: 60 })).body.auth_req_id;
    const refused = await ask('txn_3');
    expect([refused.status, refused.body.error]).toEqual([429, 'too_many_pending']);
    await ctx.harness.deps.background.drain();
    expect(ctx.pushes).toEqual([first, second]);
    expect(ctx.audit.filter((event) => event.type === 'refused').map((event) => [event.reason, event.client_id])).toEqual([['too_many_pending', ctx.client.client_id]]);

    expect((await answer(ctx.harness, ctx.customer, first, { decision: 'deny' })).status).toBe(200);
    expect((await ask('txn_3')).status).toBe(200);
    expect((await ask('txn_4')).body.error).toBe('too_many_pending');
    ctx.harness.clock.advance(60);
    expect((await ask('txn_4')).status).toBe(200);
  });

  it('lists the pending requests as the inbox, and keeps a place taken for a request not written yet', async () => {
    await start((policy) => {
      policy.limits.max_pending_per_user = 2;
    });
    const first = (await ask('txn_1')).body.auth_req_id;
    // A place taken by a request that is being made right now: the limit is counted before the write.
    const pendingKey = keys.pendingRequests('default', ctx.customer.sub);
    const inFlight = 'in-flight-request-000000000';
    expect((await ctx.harness.store.sortedWindowAdd(pendingKey, { nowMs: ctx.harness.clock.now(), windowMs: 0, member: inFlight, score: ctx.harness.clock.now() + 300_000, maxCount: 2 })).ok).toBe(true);
    expect(await inbox()).toEqual([first]);
    expect(await ctx.harness.store.sortedWindowMembers(pendingKey, ctx.harness.clock.now(), 0)).toEqual([first, inFlight]);
    expect((await ask('txn_2')).body.error).toBe('too_many_pending');
  });

  it('skips a push over the user’s push rate and audits it, while the request stands and can be approved', async () => {
    await start((policy) => {
      policy.limits.pushes_per_user = { window_seconds: 600, max_count: 2 };
    });
    const ids = [];
    for (const id of ['txn_1', 'txn_2', 'txn_3']) ids.push((await ask(id)).body.auth_req_id as string);
    await ctx.harness.deps.background.drain();
    expect(ctx.pushes).toEqual(ids.slice(0, 2));
    expect(ctx.audit.find((event) => event.type === 'push_skipped')).toMatchObject({ auth_req_id: ids[2], sub: 'customer_1', reason: 'push_rate_limited', channel: 'push' });
    expect((await inbox()).sort()).toEqual([...ids].sort());
    expect((await answer(ctx.harness, ctx.customer, ids[2]!, { decision: 'approve' })).body.request.state).toBe('approved');
    ctx.harness.clock.advance(600);
    const later = (await ask('txn_4')).body.auth_req_id;
    await ctx.harness.deps.background.drain();
    expect(ctx.pushes.at(-1)).toBe(later);
  });
});
