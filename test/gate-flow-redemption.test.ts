/** The approval gate end to end: an approved request redeemed once, with its outcome and audit, and the approval token's single issue and lifetime. */
import { CountersignError } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { payment } from './support/payment.ts';
import { errorOf } from './support/refusal.ts';
import { useGate } from './support/gate-flow.ts';

describe.each(['memory', 'redis'] as const)('the approval gate end to end (%s store)', (storeKind) => {
  const ctx = useGate(storeKind);
  const { approved } = ctx;

  it('moves pending → approved → redeemed and records the outcome, with an audit event for each step', async () => {
    const asked = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment(), binding_message: 'Order 1042' });
    expect(asked.interval).toBe(5);
    expect(asked.expires_in).toBe(300);
    // 160 bits of entropy (CIBA Core §7.3 recommends 160, requires 128), base64url.
    expect(asked.auth_req_id).toMatch(/^[A-Za-z0-9_-]{27}$/);
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });

    // The person opens the request once its push has reached them: the push (background work) goes first.
    await ctx.harness.drain();
    expect((await ctx.harness.decide(ctx.customer, asked.auth_req_id, 'approve')).body.request.state).toBe('approved');
    const polled = await ctx.agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error('not approved');
    expect(polled.token.token_type).toBe('Bearer');
    expect(polled.token.expires_in).toBe(600);
    expect(polled.token.authorization_details).toEqual(payment());

    const redeemed = await ctx.agent.redeem(polled.token.access_token, payment());
    expect(redeemed).toMatchObject({ status: 'redeemed', idempotency_key: 'txn_1042', authorization_details: payment() });
    await ctx.agent.reportOutcome(redeemed.redemption_id, { status: 'succeeded', reference: 're_1' });
    expect(await ctx.agent.getRequest(asked.auth_req_id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1' } });

    await ctx.harness.deps.background.drain();
    const audit = await ctx.harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(audit.body.events.map((event: { type: string }) => event.type)).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'redeemed', 'outcome']);
    expect(JSON.stringify(audit.body)).not.toContain(polled.token.access_token);
    expect(audit.body.events.at(-1)).toMatchObject({ type: 'outcome', detail: { status: 'succeeded', reference: 're_1' } });

    const conflicting = await errorOf(ctx.agent.reportOutcome(redeemed.redemption_id, { status: 'failed', reason: 'declined' }));
    expect([conflicting.code, conflicting.status]).toEqual(['outcome_conflict', 409]);
    const after = await ctx.harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(after.body.events.at(-1)).toMatchObject({ type: 'refused', reason: 'outcome_conflict' });
  });

  it('gives exactly one of 50 concurrent redeems of one token the redemption', async () => {
    const { token } = await approved();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        ctx.agent.redeem(token.access_token, payment()).then(
          (ok) => ok,
          (error: CountersignError) => error,
        ),
      ),
    );
    const winners = results.filter((result) => !(result instanceof CountersignError));
    const losers = results.filter((result): result is CountersignError => result instanceof CountersignError);
    expect(winners).toHaveLength(1);
    expect(losers.map((error) => error.code)).toEqual(Array(49).fill('already_redeemed'));
    const winnerId = (winners[0] as { redemption_id: string }).redemption_id;
    for (const error of losers) expect(error.body?.redemption).toMatchObject({ redemption_id: winnerId, outcome: { status: 'unknown' } });
  });

  it('refuses a redeem whose action differs and leaves the approval redeemable', async () => {
    const { token, auth_req_id } = await approved();
    const error = await errorOf(ctx.agent.redeem(token.access_token, payment({ payee: { id: 'acct_66', name: 'ACME Ltd' } })));
    expect([error.code, error.status]).toEqual(['approval_mismatch', 400]);
    expect((await ctx.agent.getRequest(auth_req_id)).state).toBe('approved');
    expect((await ctx.agent.redeem(token.access_token, payment())).status).toBe('redeemed');
  });

  it('issues the token once: a second poll after approval is invalid_grant, and changes nothing', async () => {
    const { auth_req_id } = await approved();
    const before = (await ctx.harness.admin('GET', `/requests/${auth_req_id}`)).body.request;
    expect((await errorOf(ctx.agent.pollToken(auth_req_id))).code).toBe('invalid_grant');
    expect((await errorOf(ctx.agent.pollToken(auth_req_id))).code).toBe('invalid_grant');
    // Polls refused at once count for no poll rate: the interval is not raised as for slow_down.
    expect((await ctx.harness.admin('GET', `/requests/${auth_req_id}`)).body.request).toEqual(before);
  });

  it('refuses an approval token after its lifetime and moves the request to expired', async () => {
    const { token, auth_req_id } = await approved();
    ctx.harness.clock.advance(600);
    expect((await errorOf(ctx.agent.redeem(token.access_token, payment()))).code).toBe('invalid_token');
    expect((await ctx.agent.getRequest(auth_req_id)).state).toBe('expired');
  });
});
