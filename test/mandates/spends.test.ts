/** Standing mandates (docs/mandates.md): each spend recorded once, one outcome per spend, and revocation by an operator. */
import { describe, expect, it } from 'vitest';
import { spendPayment } from '../support/mandate.ts';
import { basic } from '../support/raw-request.ts';
import { useMandates } from './support.ts';

describe('standing mandates (redis store)', () => {
  const ctx = useMandates();
  const { approve, pay, refusal, view } = ctx;

  it('answers a replay of a spend with its original record, and another payment under its transaction_id with transaction_conflict', async () => {
    const { token } = await approve();
    const first = await pay(token, spendPayment('bill_1', { amount_minor: 500 }));
    expect(first.status).toBe(200);
    const again = await pay(token, spendPayment('bill_1', { amount_minor: 500 }));
    expect(refusal(again)).toEqual([409, 'already_redeemed']);
    expect(again.body.redemption).toEqual({ redemption_id: first.body.redemption_id, redeemed_at: first.body.redeemed_at, outcome: { status: 'unknown' } });
    expect(refusal(await pay(token, spendPayment('bill_1', { amount_minor: 600 })))).toEqual([409, 'transaction_conflict']);
    // Nothing was spent twice.
    expect((await pay(token, spendPayment('bill_2', { amount_minor: 1000 }))).status).toBe(200);
    const fill = await Promise.all([1, 2].map((i) => pay(token, spendPayment(`fill_${i}`, { amount_minor: 1000 }))));
    expect(fill.map((answer) => answer.status)).toEqual([200, 200]);
    expect(refusal(await pay(token, spendPayment('fill_3', { amount_minor: 201 })))).toEqual([403, 'mandate_exceeded']);
    expect((await pay(token, spendPayment('fill_4', { amount_minor: 200 }))).status).toBe(200);
  });

  it('takes one outcome per spend, shows it to the person, and refuses a conflicting one', async () => {
    const { token, auth_req_id } = await approve();
    const [a, b] = [await pay(token, spendPayment('bill_a')), await pay(token, spendPayment('bill_b'))];
    const report = (redemptionId: string, body: Record<string, unknown>) => ctx.harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body, headers: { authorization: basic(ctx.client) } });
    expect((await report(a.body.redemption_id, { status: 'succeeded', reference: 'pay_1' })).body).toEqual({ redemption_id: a.body.redemption_id, auth_req_id, outcome: { status: 'succeeded', reference: 'pay_1' } });
    expect((await report(a.body.redemption_id, { status: 'succeeded', reference: 'pay_1' })).status).toBe(200);
    expect(refusal(await report(a.body.redemption_id, { status: 'failed' }))).toEqual([409, 'outcome_conflict']);
    expect((await report(b.body.redemption_id, { status: 'failed', reason: 'Card declined' })).status).toBe(200);
    expect(refusal(await report(`${a.body.redemption_id.split('.')[0]}x.${auth_req_id}`, { status: 'succeeded' }))).toEqual([404, 'not_found']);
    const spends = (await view(auth_req_id)).mandate.spends;
    expect(spends.map((spent) => [spent.transaction_id, spent.outcome])).toEqual([
      ['bill_b', { status: 'failed', reason: 'Card declined' }],
      ['bill_a', { status: 'succeeded', reference: 'pay_1' }],
    ]);
    const again = await pay(token, spendPayment('bill_a'));
    expect(again.body.redemption.outcome).toEqual({ status: 'succeeded', reference: 'pay_1' });
  });

  it('stops at once when an operator revokes it; earlier spends stay, replays still answer', async () => {
    const { token, auth_req_id } = await approve();
    expect((await pay(token, spendPayment('before'))).status).toBe(200);
    const revoked = await ctx.harness.admin('POST', `/mandates/${auth_req_id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.mandate).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    expect(refusal(await pay(token, spendPayment('after')))).toEqual([403, 'mandate_revoked']);
    expect(refusal(await pay(token, spendPayment('before')))).toEqual([409, 'already_redeemed']);
    expect((await ctx.harness.admin('POST', `/mandates/${auth_req_id}/revoke`)).status).toBe(200);
    expect((await ctx.harness.admin('GET', `/requests/${auth_req_id}`)).body.request).toMatchObject({ state: 'expired', expiry_reason: 'mandate_revoked' });
  });
});
