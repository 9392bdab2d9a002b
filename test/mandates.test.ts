import type { PushSender } from '@countersign/server';
import type { MandateView } from '@countersign/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bcAuthorize, device } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { approvedMandate, instant, mandate, spend, spendPayment } from './support/mandate.ts';
import { basic } from './support/raw-request.ts';

/**
 * Standing mandates (docs/mandates.md), on Redis with the injected clock: the dates
 * checked at /bc-authorize, a mandate token that lasts until the mandate's end, each spend checked
 * against the bounds at their edges and recorded once, outcomes per spend, revocation by an
 * operator and by the person's passkey, receipts, and the audit of it all in order.
 */
describe('standing mandates (redis store)', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: { client_id: string; client_secret: string };
  const pushed: { summary: string; kind: string }[] = [];
  const pushSender: PushSender = {
    async send(_subscription, payload) {
      pushed.push(JSON.parse(payload));
      return { status: 'sent', statusCode: 201 };
    },
  };

  beforeEach(async () => {
    pushed.length = 0;
    harness = await createHarness({ store: 'redis', pushSender });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Bill payer');
    const subscription = { endpoint: 'https://push.example.test/send/phone', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } };
    expect((await device(harness, customer, 'PUT', '/push-subscription', subscription)).status).toBe(204);
  });
  afterEach(() => harness.close());

  const now = () => harness.clock.now();
  /** Moves the injected clock to `targetMs`. */
  const travel = (targetMs: number) => harness.clock.advance((targetMs - now()) / 1000);
  const approve = (details = mandate(now())) => approvedMandate(harness, client, customer, details);
  const pay = (token: string, payment: unknown) => spend(harness, client, token, payment);
  const refusal = (answer: { status: number; body: any }) => [answer.status, answer.body.error];
  const audit = async (id: string) => (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; reason?: string; detail?: Record<string, unknown> }[];
  const view = async (id: string) => (await device(harness, customer, 'GET', `/mandates/${id}`)).body as { mandate: MandateView; options: { revoke?: Record<string, unknown> } };

  describe('at /bc-authorize, the dates against the clock', () => {
    it.each([
      ['an end in the past', (t: number) => ({ starts_at: instant(t - 3_600_000), ends_at: instant(t - 1000) }), /ends_at .* must be in the future/],
      ['a start more than a day ago', (t: number) => ({ starts_at: instant(t - 86_400_000 - 5000) }), /starts_at .* at most one day in the past/],
      ['a life longer than the policy allows (400 days)', (t: number) => ({ ends_at: instant(t + 400 * 86_400_000 + 5000) }), /at most 34560000 seconds \(400 days\)/],
    ])('refuses %s with invalid_authorization_details, storing nothing', async (_, dates, description) => {
      const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details: mandate(now(), dates(now())) });
      expect([asked.status, asked.body.error]).toEqual([400, 'invalid_authorization_details']);
      expect(asked.body.error_description).toMatch(description);
      expect((await device(harness, customer, 'GET', '/mandates')).body.mandates).toEqual([]);
    });
    it('accepts a start up to a day ago and a life of exactly 400 days', async () => {
      const start = now() - 86_400_000 + 5000;
      const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details: mandate(now(), { starts_at: instant(start), ends_at: instant(start + 400 * 86_400_000) }) });
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    });
  });

  it('issues a mandate token that lasts until the mandate ends, not the usual token lifetime', async () => {
    const details = mandate(now());
    const { token, expires_in, auth_req_id } = await approve(details);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims.exp).toBe(Date.parse((details[0] as { ends_at: string }).ends_at) / 1000);
    expect(expires_in).toBeGreaterThan(30 * 86_400 - 60);
    // Still approved after the usual lifetime (600 s) passed: it is a standing permission.
    travel(now() + 3_600_000);
    expect((await pay(token, spendPayment('bill_1'))).status).toBe(200);
    expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request.state).toBe('approved');
  });

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
    const two = await harness.call('POST', '/redeem', { body: { token, authorization_details: [spendPayment('a'), spendPayment('b')] }, headers: { authorization: basic(client) } });
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
    const report = (redemptionId: string, body: Record<string, unknown>) => harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body, headers: { authorization: basic(client) } });
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
    const revoked = await harness.admin('POST', `/mandates/${auth_req_id}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.mandate).toMatchObject({ status: 'revoked', revoked_at: expect.any(String) });
    expect(refusal(await pay(token, spendPayment('after')))).toEqual([403, 'mandate_revoked']);
    expect(refusal(await pay(token, spendPayment('before')))).toEqual([409, 'already_redeemed']);
    expect((await harness.admin('POST', `/mandates/${auth_req_id}/revoke`)).status).toBe(200);
    expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request).toMatchObject({ state: 'expired', expiry_reason: 'mandate_revoked' });
  });

  it("lists the person's mandates, active first, and revokes one with a passkey over the revoke challenge (single use)", async () => {
    const older = await approve(mandate(now(), { transaction_id: 'mdt_old' }));
    await harness.admin('POST', `/mandates/${older.auth_req_id}/revoke`);
    const { token, auth_req_id } = await approve(mandate(now(), { transaction_id: 'mdt_new' }));
    expect((await pay(token, spendPayment('bill_1'))).status).toBe(200);
    const listed = (await device(harness, customer, 'GET', '/mandates')).body.mandates as MandateView[];
    expect(listed.map((shown) => [shown.auth_req_id, shown.status])).toEqual([
      [auth_req_id, 'active'],
      [older.auth_req_id, 'revoked'],
    ]);
    expect(listed[0]).toMatchObject({ client_name: 'Bill payer', spends_left: null, period: null, display: { type: 'mandate' }, revoked_at: null });

    const opened = await view(auth_req_id);
    expect(opened.options.revoke).toMatchObject({ userVerification: 'required', challenge: expect.any(String) });
    expect((await view(older.auth_req_id)).options).toEqual({});
    const response = await customer.authenticator.authenticate(opened.options.revoke as never);
    const done = await device(harness, customer, 'POST', `/mandates/${auth_req_id}/revoke`, { response });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.mandate).toMatchObject({ status: 'revoked', auth_req_id });
    expect(refusal(await pay(token, spendPayment('bill_2')))).toEqual([403, 'mandate_revoked']);
    // The nonce was used: the same assertion again is refused.
    expect(refusal(await device(harness, customer, 'POST', `/mandates/${auth_req_id}/revoke`, { response }))).toEqual([400, 'invalid_assertion']);
    // Another person's device does not see it.
    const other = await harness.enrollUser('customer_2');
    expect((await device(harness, other, 'GET', `/mandates/${auth_req_id}`)).status).toBe(404);
  });

  it('pushes a receipt per spend only when the mandate asks for receipts', async () => {
    const quiet = await approve(mandate(now(), { transaction_id: 'mdt_quiet' }));
    const loud = await approve(mandate(now(), { transaction_id: 'mdt_loud', receipts: true }));
    await harness.drain();
    pushed.length = 0;
    expect((await pay(quiet.token, spendPayment('q1'))).status).toBe(200);
    expect((await pay(loud.token, spendPayment('l1', { amount_minor: 420 }))).status).toBe(200);
    await harness.drain();
    expect(pushed).toEqual([{ kind: 'mandate_spend', auth_req_id: loud.auth_req_id, summary: 'EUR 4.20 paid to ACME Utilities under your standing permission for Bill payer; EUR 32.80 left' }]);
  });

  it('audits the mandate, each spend and each refusal, in order', async () => {
    const { token, auth_req_id } = await approve();
    await pay(token, spendPayment('bill_1', { amount_minor: 1000 }));
    await pay(token, spendPayment('bill_x', { payee: { id: 'acct_99', name: 'Mallory' } }));
    await pay(token, spendPayment('bill_2', { amount_minor: 250 }));
    await harness.admin('POST', `/mandates/${auth_req_id}/revoke`);
    await pay(token, spendPayment('bill_3'));
    await harness.drain();
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
