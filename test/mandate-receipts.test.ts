import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createWebPushSender, loadVapidKeys } from '../server/src/push/index.ts';
import { MemoryStore } from '../server/src/store/index.ts';
import { device } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from './support/mandate.ts';
import { browserSubscription, decrypt, startPushReceiver, type BrowserSubscription, type PushReceiver } from './support/push-receiver.ts';

/**
 * A mandate's receipts end to end (docs/mandates.md, `receipts`): each spend of a mandate that asks
 * for receipts reaches the person's phone as a real Web Push message, through the real sender, to a
 * local HTTPS push service, and decrypts there as a browser would (RFC 8291 aes128gcm) to the
 * receipt itself: the mandate, the amount, the payee and what is left. A mandate without receipts
 * pushes nothing for a spend. On the memory store and on Redis.
 */
describe.each(['memory', 'redis'] as const)('mandate receipts over Web Push (%s store)', (store) => {
  let receiver: PushReceiver;
  let harness: Harness;
  let customer: EnrolledUser;
  let phone: BrowserSubscription;
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    receiver = await startPushReceiver();
  });
  afterAll(() => receiver.close());

  beforeEach(async () => {
    receiver.received.length = 0;
    const vapid = await loadVapidKeys({ store: new MemoryStore(), production: false });
    harness = await createHarness({ store, pushSender: createWebPushSender({ vapid, agent: receiver.agent, timeoutMs: 5000 }) });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Bill payer');
    phone = browserSubscription(receiver.endpoint(`/push/${store}/phone`));
    expect((await device(harness, customer, 'PUT', '/push-subscription', phone.subscription)).status).toBe(204);
  });
  afterEach(() => harness.close());

  const now = () => harness.clock.now();
  const approve = (overrides: Record<string, unknown>) => approvedMandate(harness, client, customer, mandate(now(), overrides));
  /** Spends, then runs every job to the end (the receipt's included): the signal that all a spend pushes has been pushed. */
  const pay = async (token: string, payment: unknown) => {
    const answer = await spend(harness, client, token, payment);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    await harness.drain();
    return answer;
  };
  /** Every push received since the last call, decrypted with the phone's keys. */
  const takeReceived = () => receiver.received.splice(0).map((push) => ({ path: push.path, headers: push.headers, payload: JSON.parse(decrypt(push, phone).toString('utf8')) }));

  it('pushes each spend of a mandate with receipts as an encrypted receipt: the mandate, the amount, the payee and what is left', async () => {
    const { token, auth_req_id } = await approve({ transaction_id: 'mdt_loud', receipts: true, period: 'month' });
    await harness.drain();
    // The approval request's own push came first; the receipts are what follows.
    expect(takeReceived().map((push) => push.payload.kind)).toEqual(['approval_request']);

    await pay(token, spendPayment('bill_1', { amount_minor: 420 }));
    await pay(token, spendPayment('bill_2', { amount_minor: 1000, payee: { id: 'acct_78', name: 'Water Board' } }));

    const receipts = takeReceived();
    expect(receipts.map((push) => push.payload)).toEqual([
      { kind: 'mandate_spend', auth_req_id, summary: 'EUR 4.20 paid to ACME Utilities under your standing permission for Bill payer; EUR 32.80 left this month' },
      { kind: 'mandate_spend', auth_req_id, summary: 'EUR 10.00 paid to Water Board under your standing permission for Bill payer; EUR 22.80 left this month' },
    ]);
    for (const receipt of receipts) {
      expect(receipt.path).toBe(`/push/${store}/phone`);
      expect(receipt.headers).toMatchObject({ 'content-encoding': 'aes128gcm', ttl: '86400', urgency: 'high' });
    }
    // What the receipt said is left is what the person's mandate view says.
    const view = (await device(harness, customer, 'GET', `/mandates/${auth_req_id}`)).body.mandate;
    expect(view.remaining.map((left: { left: { formatted_code: string } }) => left.left.formatted_code)).toEqual(['EUR 22.80']);
  });

  it('says what is left in all for a mandate without a period, and nothing is left once its total is spent', async () => {
    const { token, auth_req_id } = await approve({ transaction_id: 'mdt_all', receipts: true, limits: [{ currency: 'EUR', per_spend_min_minor: 100, per_spend_max_minor: 1000, total_minor: 1500 }] });
    await harness.drain();
    takeReceived();
    await pay(token, spendPayment('bill_1', { amount_minor: 1000 }));
    await pay(token, spendPayment('bill_2', { amount_minor: 500 }));
    expect(takeReceived().map((push) => push.payload)).toEqual([
      { kind: 'mandate_spend', auth_req_id, summary: 'EUR 10.00 paid to ACME Utilities under your standing permission for Bill payer; EUR 5.00 left' },
      { kind: 'mandate_spend', auth_req_id, summary: 'EUR 5.00 paid to ACME Utilities under your standing permission for Bill payer; EUR 0.00 left' },
    ]);
  });

  it('pushes nothing for a spend of a mandate without receipts (the default)', async () => {
    const quiet = await approve({ transaction_id: 'mdt_quiet' });
    await harness.drain();
    expect(takeReceived().map((push) => push.payload.kind)).toEqual(['approval_request']);

    const spent = await pay(quiet.token, spendPayment('bill_q', { amount_minor: 420 }));
    // The spend landed (it shows in the person's view), every job has run, and no push went out.
    const view = (await device(harness, customer, 'GET', `/mandates/${quiet.auth_req_id}`)).body.mandate;
    expect(view.spends.map((shown: { redemption_id: string }) => shown.redemption_id)).toEqual([spent.body.redemption_id]);
    expect(await harness.deps.jobs.nextDueAt()).toBeNull();
    expect(receiver.received).toEqual([]);
  });
});
