/** Standing mandates (docs/mandates.md): each spend checked against the bounds at their edges: total, payees, currency, amounts, dates, count and the calendar month. */
import { describe, expect, it } from 'vitest';
import { instant, mandate, spendPayment } from '../support/mandate.ts';
import { basic } from '../support/raw-request.ts';
import { useMandates } from './support.ts';

describe('standing mandates (redis store)', () => {
  const ctx = useMandates();
  const { now, travel, approve, pay, refusal, view } = ctx;

  it('spends up to the exact total, and refuses one minor unit over, consuming nothing', async () => {
    const { token, auth_req_id } = await approve();
    for (const [i, amount] of [1000, 1000, 1000].entries()) expect((await pay(token, spendPayment(`bill_${i}`, { amount_minor: amount }))).status).toBe(200);
    // 3000 spent: 701 would make 3701, one minor unit over 3700.
    expect(refusal(await pay(token, spendPayment('bill_over', { amount_minor: 701 })))).toEqual([403, 'mandate_exceeded']);
    const exact = await pay(token, spendPayment('bill_exact', { amount_minor: 700 }));
    expect(exact.status, JSON.stringify(exact.body)).toBe(200);
    expect(exact.body).toMatchObject({ status: 'redeemed', idempotency_key: 'bill_exact', authorization_details: [spendPayment('bill_exact', { amount_minor: 700 })] });
    expect(exact.body.redemption_id).toMatch(new RegExp(`^rdm_[A-Za-z0-9_-]+\\.${auth_req_id}$`));
    expect(refusal(await pay(token, spendPayment('bill_more', { amount_minor: 100 })))).toEqual([403, 'mandate_exceeded']);
    const { mandate: shown } = await view(auth_req_id);
    expect(shown.remaining).toEqual([{ currency: 'EUR', total: expect.objectContaining({ amount_minor: 3700 }), spent: expect.objectContaining({ amount_minor: 3700 }), left: expect.objectContaining({ amount_minor: 0 }) }]);
    expect(shown.spends.map((spent) => spent.transaction_id)).toEqual(['bill_exact', 'bill_2', 'bill_1', 'bill_0']);
  });

  it('refuses a payee not listed, a listed id under another name, a currency not listed and amounts outside the range', async () => {
    const { token, auth_req_id } = await approve();
    expect(refusal(await pay(token, spendPayment('p1', { payee: { id: 'acct_99', name: 'ACME Utilities' } })))).toEqual([403, 'payee_not_allowed']);
    expect(refusal(await pay(token, spendPayment('p2', { payee: { id: 'acct_77', name: 'Water Board' } })))).toEqual([403, 'payee_not_allowed']);
    expect(refusal(await pay(token, spendPayment('p3', { currency: 'USD' })))).toEqual([403, 'mandate_exceeded']);
    expect(refusal(await pay(token, spendPayment('p4', { amount_minor: 99 })))).toEqual([403, 'mandate_exceeded']);
    expect(refusal(await pay(token, spendPayment('p5', { amount_minor: 1001 })))).toEqual([403, 'mandate_exceeded']);
    // The range's own edges pass, to either listed payee.
    expect((await pay(token, spendPayment('p6', { amount_minor: 100 }))).status).toBe(200);
    expect((await pay(token, spendPayment('p7', { amount_minor: 1000, payee: { id: 'acct_78', name: 'Water Board' } }))).status).toBe(200);
    expect((await view(auth_req_id)).mandate.remaining[0]!.spent.amount_minor).toBe(1100);
  });

  it('refuses what is not one canonical payment with invalid_request', async () => {
    const { token } = await approve();
    expect(refusal(await pay(token, { type: 'deletion', transaction_id: 'd1', resource: { kind: 'customer', system: 'crm' }, ids: ['c1'], count: 1, reversible: false, purpose: 'x' }))).toEqual([400, 'invalid_request']);
    const two = await ctx.harness.call('POST', '/redeem', { body: { token, authorization_details: [spendPayment('a'), spendPayment('b')] }, headers: { authorization: basic(ctx.client) } });
    expect(refusal(two)).toEqual([400, 'invalid_request']);
    expect(refusal(await pay(token, spendPayment('p1', { purpose: 'Electricity ' })))).toEqual([400, 'invalid_request']);
    expect(refusal(await pay(token, spendPayment('p2', { extra: 1 })))).toEqual([400, 'invalid_request']);
  });

  it('refuses a spend one second before starts_at and one second after ends_at (mandate_expired), and spends at the start', async () => {
    const start = Math.ceil((now() + 3_600_000) / 1000) * 1000;
    const end = start + 7 * 86_400_000;
    const { token } = await approve(mandate(now(), { starts_at: instant(start), ends_at: instant(end) }));
    travel(start - 1000);
    expect(refusal(await pay(token, spendPayment('early')))).toEqual([403, 'mandate_expired']);
    travel(start);
    expect((await pay(token, spendPayment('first'))).status).toBe(200);
    travel(end - 1000);
    expect((await pay(token, spendPayment('last'))).status).toBe(200);
    travel(end + 1000);
    const late = await pay(token, spendPayment('late'));
    expect(refusal(late)).toEqual([403, 'mandate_expired']);
  });

  it('refuses the spend after max_spends (mandate_exceeded)', async () => {
    const { token, auth_req_id } = await approve(mandate(now(), { max_spends: 2 }));
    expect((await pay(token, spendPayment('s1'))).status).toBe(200);
    expect((await view(auth_req_id)).mandate.spends_left).toBe(1);
    expect((await pay(token, spendPayment('s2'))).status).toBe(200);
    expect(refusal(await pay(token, spendPayment('s3')))).toEqual([403, 'mandate_exceeded']);
    expect((await view(auth_req_id)).mandate.spends_left).toBe(0);
  });

  it('renews the total and the count with the UTC calendar month', async () => {
    const { token, auth_req_id } = await approve(mandate(now(), { period: 'month', max_spends: 4, ends_at: instant(now() + 90 * 86_400_000) }));
    for (const i of [1, 2, 3, 4]) expect((await pay(token, spendPayment(`m1_${i}`, { amount_minor: 925 }))).status).toBe(200);
    expect(refusal(await pay(token, spendPayment('m1_5')))).toEqual([403, 'mandate_exceeded']);
    const today = new Date(now());
    const nextMonth = Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 1, 1);
    travel(nextMonth - 2000);
    expect(refusal(await pay(token, spendPayment('m1_6')))).toEqual([403, 'mandate_exceeded']);
    travel(nextMonth + 1000);
    expect((await pay(token, spendPayment('m2_1', { amount_minor: 1000 }))).status).toBe(200);
    const shown = (await view(auth_req_id)).mandate;
    expect(shown.period).toEqual({ start: new Date(nextMonth).toISOString(), end: new Date(Date.UTC(today.getUTCFullYear(), today.getUTCMonth() + 2, 1)).toISOString() });
    expect([shown.remaining[0]!.left.amount_minor, shown.spends_left]).toEqual([2700, 3]);
  });
});
