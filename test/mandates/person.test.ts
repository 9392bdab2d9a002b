/** Standing mandates (docs/mandates.md): what the person sees and revokes with a passkey, receipts, and the audit of it all in order. */
import type { MandateView } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { device } from '../guarantees/policy-support.ts';
import { mandate, spendPayment } from '../support/mandate.ts';
import { useMandates } from './support.ts';

describe('standing mandates (redis store)', () => {
  const ctx = useMandates();
  const { now, approve, pay, refusal, audit, view } = ctx;

  it("lists the person's mandates, active first, and revokes one with a passkey over the revoke challenge (single use)", async () => {
    const older = await approve(mandate(now(), { transaction_id: 'mdt_old' }));
    await ctx.harness.admin('POST', `/mandates/${older.auth_req_id}/revoke`);
    const { token, auth_req_id } = await approve(mandate(now(), { transaction_id: 'mdt_new' }));
    expect((await pay(token, spendPayment('bill_1'))).status).toBe(200);
    const listed = (await device(ctx.harness, ctx.customer, 'GET', '/mandates')).body.mandates as MandateView[];
    expect(listed.map((shown) => [shown.auth_req_id, shown.status])).toEqual([
      [auth_req_id, 'active'],
      [older.auth_req_id, 'revoked'],
    ]);
    expect(listed[0]).toMatchObject({ client_name: 'Bill payer', spends_left: null, period: null, display: { type: 'mandate' }, revoked_at: null });

    const opened = await view(auth_req_id);
    expect(opened.options.revoke).toMatchObject({ userVerification: 'required', challenge: expect.any(String) });
    expect((await view(older.auth_req_id)).options).toEqual({});
    const response = await ctx.customer.authenticator.authenticate(opened.options.revoke as never);
    const done = await device(ctx.harness, ctx.customer, 'POST', `/mandates/${auth_req_id}/revoke`, { response });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.mandate).toMatchObject({ status: 'revoked', auth_req_id });
    expect(refusal(await pay(token, spendPayment('bill_2')))).toEqual([403, 'mandate_revoked']);
    // The nonce was used: the same assertion again is refused.
    expect(refusal(await device(ctx.harness, ctx.customer, 'POST', `/mandates/${auth_req_id}/revoke`, { response }))).toEqual([400, 'invalid_assertion']);
    // Another person's device does not see it.
    const other = await ctx.harness.enrollUser('customer_2');
    expect((await device(ctx.harness, other, 'GET', `/mandates/${auth_req_id}`)).status).toBe(404);
  });

  it('pushes a receipt per spend only when the mandate asks for receipts', async () => {
    const quiet = await approve(mandate(now(), { transaction_id: 'mdt_quiet' }));
    const loud = await approve(mandate(now(), { transaction_id: 'mdt_loud', receipts: true }));
    await ctx.harness.drain();
    ctx.pushed.length = 0;
    expect((await pay(quiet.token, spendPayment('q1'))).status).toBe(200);
    expect((await pay(loud.token, spendPayment('l1', { amount_minor: 420 }))).status).toBe(200);
    await ctx.harness.drain();
    expect(ctx.pushed).toEqual([{ kind: 'mandate_spend', auth_req_id: loud.auth_req_id, summary: 'EUR 4.20 paid to ACME Utilities under your standing permission for Bill payer; EUR 32.80 left' }]);
  });

  it('audits the mandate, each spend and each refusal, in order', async () => {
    const { token, auth_req_id } = await approve();
    await pay(token, spendPayment('bill_1', { amount_minor: 1000 }));
    await pay(token, spendPayment('bill_x', { payee: { id: 'acct_99', name: 'Mallory' } }));
    await pay(token, spendPayment('bill_2', { amount_minor: 250 }));
    await ctx.harness.admin('POST', `/mandates/${auth_req_id}/revoke`);
    await pay(token, spendPayment('bill_3'));
    await ctx.harness.drain();
    const events = (await audit(auth_req_id)).filter((event) => event.type !== 'pushed' && event.type !== 'viewed');
    expect(events.map((event) => [event.type, event.reason ?? null])).toEqual([
      ['proposed', null],
      ['approved', null],
      ['token_issued', null],
      ['spent', null],
      ['refused', 'payee_not_allowed'],
      ['spent', null],
      ['mandate_revoked', 'mandate_revoked'],
      ['refused', 'mandate_revoked'],
    ]);
    expect(events[3]!.detail).toMatchObject({ transaction_id: 'bill_1', amount_minor: 1000, currency: 'EUR', payee_id: 'acct_77', redemption_id: expect.stringMatching(/^rdm_/) });
  });
});
