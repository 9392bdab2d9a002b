import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { bcAuthorize, device, pollToken, watchAudit, type SeenEvent } from './guarantees/policy-support.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

type Client = { client_id: string; client_secret: string };

/** The approved payee's name, in NFC: `é` and `ë` are one code point each. */
const NAME = 'Caf\u00e9 Zo\u00eb';

/** The details as JSON text with `name` set to `text` exactly as written (a raw spelling JSON.stringify never produces). */
function rawDetails(replace: [string, string]): string {
  const text = JSON.stringify(payment({ payee: { id: 'acct_77', name: NAME } }));
  if (!text.includes(replace[0])) throw new Error(`no ${replace[0]} in ${text}`);
  return text.replace(replace[0], replace[1]);
}

/**
 * The executor redeems exactly what was approved, byte for byte (docs/security.md). `/bc-authorize`
 * refuses what two parsers, or a person, would read two ways; `/redeem` compares the action as
 * the executor wrote it with the approved canonical form.
 */
describe.each(['memory', 'redis'] as const)('the exact action (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  let audit: SeenEvent[];

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Refund agent');
    audit = watchAudit(harness);
  });
  afterEach(() => harness.close());

  const basic = () => `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}`;
  /** `/bc-authorize` with the details as raw JSON text and an optional binding message. */
  const ask = (detailsText: string, bindingMessage?: string) => {
    const form = new URLSearchParams({ scope: 'openid', login_hint: customer.sub, authorization_details: detailsText });
    if (bindingMessage !== undefined) form.set('binding_message', bindingMessage);
    return harness.call('POST', '/bc-authorize', { body: form.toString(), headers: { authorization: basic(), 'content-type': 'application/x-www-form-urlencoded' } });
  };
  const inbox = async () => (await device(harness, customer, 'GET', '/requests')).body.requests as unknown[];

  describe('/bc-authorize refuses, storing nothing', () => {
    const payee = (name: string): [string, string] => [`"name":"${NAME}"`, `"name":${JSON.stringify(name)}`];
    const cases: [string, string, string | undefined, string, RegExp][] = [
      ['a member named twice at the top level', rawDetails(['"amount_minor":49000', '"amount_minor":1,"amount_minor":49000']), undefined, 'invalid_authorization_details', /authorization_details\[0\]\.amount_minor: the member is named twice/],
      ['a member named twice nested in payee', rawDetails([`"name":"${NAME}"`, `"name":"${NAME}","name":"EVIL Ltd"`]), undefined, 'invalid_authorization_details', /authorization_details\[0\]\.payee\.name: the member is named twice/],
      ['amount_minor spelled 49000.0', rawDetails(['"amount_minor":49000', '"amount_minor":49000.0']), undefined, 'invalid_authorization_details', /amount_minor: numbers must be written as plain integers/],
      ['a Cyrillic a (U+0430) inside a Latin payee name', rawDetails(payee('P\u0430yPal Ltd')), undefined, 'invalid_authorization_details', /payee\.name: must be written in one script: it mixes Latin and Cyrillic \(U\+0430\)/],
      ['a Hangul filler (U+3164) in the payee name', rawDetails(payee('ACME\u3164Ltd')), undefined, 'invalid_authorization_details', /payee\.name: must not hold an invisible or filler character \(U\+3164\)/],
      ['a run of combining marks in the purpose', rawDetails(['"purpose":"Refund', '"purpose":"R\u0336\u0334\u0337\u0335\u0338efund']), undefined, 'invalid_authorization_details', /purpose: must not put more than 4 combining marks/],
      ['Arabic-Indic digits in binding_message', JSON.stringify(payment()), 'Order \u0661\u0660\u0664\u0662', 'invalid_binding_message', /binding_message: must write numbers with the ASCII digits 0-9 \(U\+0661/],
      ['a binding_message of nothing but spaces (the phone would show a blank)', JSON.stringify(payment()), ' \u00a0  ', 'invalid_binding_message', /binding_message: must not be empty/],
    ];

    it.each(cases)('%s', async (_name, detailsText, bindingMessage, error, description) => {
      const refused = await ask(detailsText, bindingMessage);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([400, error]);
      expect(refused.body.error_description).toMatch(description);
      await harness.drain();
      expect(await inbox()).toEqual([]);
      expect(audit.map((event) => [event.type, event.reason])).toEqual([['refused', error]]);
      // Nothing holds the transaction id: the same id with other (valid) details is a new request, not a conflict.
      const fresh = await ask(JSON.stringify(payment({ amount_minor: 12_345 })));
      expect(fresh.status, JSON.stringify(fresh.body)).toBe(200);
      expect(await inbox()).toHaveLength(1);
    });
  });

  it('stores and shows binding_message in the canonical form of display text: NFC, one space per run, trimmed', async () => {
    const asked = await ask(JSON.stringify(payment()), '  Order \u00a0  1042\u2003Caf\u0065\u0301  ');
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const shown = (await device(harness, customer, 'GET', '/requests')).body.requests as { binding_message: string }[];
    expect(shown.map((request) => request.binding_message)).toEqual(['Order 1042 Caf\u00e9']);
    expect((await harness.admin('GET', `/requests/${asked.body.auth_req_id}`)).body.request.binding_message).toBe('Order 1042 Caf\u00e9');
    // 64 characters once canonical: the spaces that collapse do not count.
    const long = `${'a'.repeat(32)}      ${'b'.repeat(31)}`;
    expect((await ask(JSON.stringify(payment({ transaction_id: 'txn_long' })), long)).status).toBe(200);
  });

  describe('/redeem of an approved payment', () => {
    let token: string;
    let authReqId: string;
    const approved = () => payment({ payee: { id: 'acct_77', name: NAME } });

    beforeEach(async () => {
      const asked = await ask(JSON.stringify(approved()));
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
      authReqId = asked.body.auth_req_id;
      await harness.drain();
      expect((await harness.decide(customer, authReqId, 'approve')).status).toBe(200);
      const polled = await pollToken(harness, client, authReqId);
      expect(polled.status, JSON.stringify(polled.body)).toBe(200);
      token = polled.body.access_token;
      expect(polled.body.authorization_details).toEqual(approved());
    });

    /** `/redeem` with the action written exactly as `detailsText`. */
    const redeem = (detailsText: string) => harness.call('POST', '/redeem', { body: `{"token":${JSON.stringify(token)},"authorization_details":${detailsText}}`, headers: { authorization: basic(), 'content-type': 'application/json' } });
    const state = async () => (await harness.admin('GET', `/requests/${authReqId}`)).body.request.state;
    const exact = () => JSON.stringify(approved());

    const cases: [string, string, string][] = [
      ['a member named twice (the first value is another amount)', exact().replace('"amount_minor":49000', '"amount_minor":1,"amount_minor":49000'), 'invalid_request'],
      ['amount_minor spelled 49000.0', exact().replace('"amount_minor":49000', '"amount_minor":49000.0'), 'approval_mismatch'],
      ['amount_minor spelled 4.9e4', exact().replace('"amount_minor":49000', '"amount_minor":4.9e4'), 'approval_mismatch'],
      ['the payee name with an extra space', exact().replace(`"name":"${NAME}"`, `"name":"${NAME} "`), 'approval_mismatch'],
      ['the payee name in NFD', exact().replace(`"name":"${NAME}"`, `"name":"${NAME.normalize('NFD')}"`), 'approval_mismatch'],
    ];

    it.each(cases)('refuses %s, changes nothing, and still redeems the exact form afterwards', async (_name, detailsText, error) => {
      expect(detailsText).not.toBe(exact());
      const refused = await redeem(detailsText);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([400, error]);
      expect(await state()).toBe('approved');
      expect(audit.filter((event) => event.type === 'redeemed')).toEqual([]);
      const redeemed = await redeem(exact());
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
      expect(redeemed.body.authorization_details).toEqual(approved());
      expect(await state()).toBe('redeemed');
    });

    it('redeems the approved form with its members in another order and other white space (JCS)', async () => {
      const reordered = `[ { "purpose": "Refund for order 1042", "payee": { "name": "${NAME}", "id": "acct_77" }, "currency": "EUR", "amount_minor": 49000, "transaction_id": "txn_1042", "type": "payment" } ]`;
      const redeemed = await redeem(reordered);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
    });
  });
});
