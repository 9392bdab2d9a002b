/** The history of past decisions and their outcomes (`GET /api/device/history`), as the approver sees it. */
import { describe, expect, it } from 'vitest';
import { HISTORY_LIMIT } from '../../server/src/history/index.ts';
import { answer, enrollWithRoles, pay, testPolicy } from '../guarantees/policy-support.ts';
import { createHarness } from '../support/harness.ts';
import { useDeviceAccount } from './support.ts';

describe.each(['memory', 'redis'] as const)('history and devices (%s store)', (storeKind) => {
  const ctx = useDeviceAccount(storeKind);
  const { ask, history, later } = ctx;

  it('lists the user’s decided requests newest first, each with what they did, its state and its outcome', async () => {
    const executed = await ask('txn_executed');
    expect((await answer(ctx.harness, ctx.customer, executed.auth_req_id, { decision: 'approve' })).status).toBe(200);
    later();
    const denied = await ask('txn_denied');
    expect((await answer(ctx.harness, ctx.customer, denied.auth_req_id, { decision: 'deny' })).status).toBe(200);
    later();
    const lapsed = await ask('txn_lapsed', 49_000, { requested_expiry: 30 });
    later();
    const unused = await ask('txn_unused');
    expect((await answer(ctx.harness, ctx.customer, unused.auth_req_id, { decision: 'approve' })).status).toBe(200);
    later();

    // The first approval is redeemed and its outcome reported; the request that was never answered expires.
    const polled = await ctx.agent.pollToken(executed.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    const redemption = await ctx.agent.redeem(polled.token.access_token, pay('txn_executed'));
    await ctx.agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });
    ctx.harness.clock.advance(30);
    await ctx.harness.deps.sweeper.sweep();
    // A redemption, an outcome and an expiry write the history in the background.
    await ctx.harness.deps.background.drain();

    const entries = await history();
    expect(entries.map((entry) => entry.auth_req_id)).toEqual([lapsed.auth_req_id, unused.auth_req_id, denied.auth_req_id, executed.auth_req_id]);
    const byId = Object.fromEntries(entries.map((entry) => [entry.auth_req_id, entry]));
    expect(byId[executed.auth_req_id]).toMatchObject({
      state: 'redeemed',
      outcome: { status: 'succeeded', reference: 're_1042' },
      client_name: 'Refund agent',
      tier: 'standard',
      your_part: { decision: 'approved', party: 'customer' },
      approvals: [{ party: 'customer', status: 'approved' }],
      denial: null,
    });
    expect(byId[executed.auth_req_id]!.actions[0]).toMatchObject({ title: expect.any(String), amount: { formatted_code: 'EUR 490.00' } });
    expect(byId[denied.auth_req_id]).toMatchObject({ state: 'denied', outcome: null, denial: 'denied', your_part: { decision: 'denied', party: 'customer' } });
    expect(byId[lapsed.auth_req_id]).toMatchObject({ state: 'expired', your_part: null });
    expect(byId[unused.auth_req_id]).toMatchObject({ state: 'approved', your_part: { decision: 'approved' } });

    // An approval nobody redeems reads expired once its token lifetime (600 s by default) is over, before anything wrote it down.
    ctx.harness.clock.advance(600);
    expect((await history()).find((entry) => entry.auth_req_id === unused.auth_req_id)?.state).toBe('expired');
    // Nobody else sees it.
    const other = await ctx.harness.enrollUser('customer_2');
    expect(await history(other)).toEqual([]);
  });

  it('records "this wasn’t me" as reported, and a reviewer’s part in the reviewer’s own history', async () => {
    await ctx.harness.close();
    ctx.harness = await createHarness({
      store: storeKind,
      env: { POLICY_FILE: testPolicy((policy) => (policy.tiers[0].approvers = ['customer', { role: 'reviewer:finance' }])) },
    });
    ctx.customer = await ctx.harness.enrollUser('customer_1');
    ctx.client = await ctx.harness.createClient('Refund agent');
    const reviewer = await enrollWithRoles(ctx.harness, 'rita', ['reviewer:finance']);

    // The reviewer approves first: it is in the reviewer's history, and still in the customer's inbox, not their history.
    const first = await ask('txn_reviewer_first');
    expect((await answer(ctx.harness, reviewer, first.auth_req_id, { decision: 'approve' })).body.request.state).toBe('pending');
    expect((await history(reviewer)).map((entry) => [entry.auth_req_id, entry.state])).toEqual([[first.auth_req_id, 'pending']]);
    expect(await history()).toEqual([]);
    expect((await answer(ctx.harness, ctx.customer, first.auth_req_id, { decision: 'deny' })).body.request.state).toBe('denied');
    expect((await history(reviewer))[0]).toMatchObject({ auth_req_id: first.auth_req_id, state: 'denied', denial: 'denied', your_part: { decision: 'approved' } });
    later();

    const dual = await ask('txn_dual');
    expect((await answer(ctx.harness, ctx.customer, dual.auth_req_id, { decision: 'approve' })).status).toBe(200);
    // The customer's part is done: the entry says so while the request waits for the reviewer.
    expect((await history())[0]).toMatchObject({
      auth_req_id: dual.auth_req_id,
      state: 'pending',
      approvals: [
        { party: 'customer', status: 'approved' },
        { party: 'role:reviewer:finance', status: 'waiting' },
      ],
    });
    expect((await history(reviewer)).map((entry) => entry.auth_req_id)).toEqual([first.auth_req_id]);
    later();
    expect((await answer(ctx.harness, reviewer, dual.auth_req_id, { decision: 'approve' })).body.request.state).toBe('approved');
    expect((await history())[0]).toMatchObject({ auth_req_id: dual.auth_req_id, state: 'approved', your_part: { decision: 'approved', party: 'customer' } });
    expect((await history(reviewer))[0]).toMatchObject({ auth_req_id: dual.auth_req_id, state: 'approved', your_part: { decision: 'approved', party: 'role:reviewer:finance' } });

    later();
    const fraud = await ask('txn_fraud');
    expect((await answer(ctx.harness, ctx.customer, fraud.auth_req_id, { decision: 'deny', path: 'report' })).status).toBe(200);
    expect((await history())[0]).toMatchObject({ auth_req_id: fraud.auth_req_id, state: 'denied', denial: 'fraud_reported', your_part: { decision: 'reported' } });
    expect((await history(reviewer)).map((entry) => entry.auth_req_id)).toEqual([dual.auth_req_id, first.auth_req_id]);
  });

  it(`keeps the newest ${HISTORY_LIMIT} entries`, async () => {
    const ids: string[] = [];
    for (let i = 0; i < HISTORY_LIMIT + 2; i++) {
      const asked = await ask(`txn_${i}`);
      expect((await answer(ctx.harness, ctx.customer, asked.auth_req_id, { decision: 'deny' })).status).toBe(200);
      ids.push(asked.auth_req_id);
      later();
    }
    const entries = await history();
    expect(entries).toHaveLength(HISTORY_LIMIT);
    expect(entries.map((entry) => entry.auth_req_id)).toEqual(ids.slice(2).reverse());
  });
});
