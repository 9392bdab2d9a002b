import { describe, expect, it } from 'vitest';
import { basic, send } from '../support/raw-request.ts';
import { type Attack, BASIC_CHALLENGE, BEARER_CHALLENGE, deep, token, json, tamperedToken, unsignedToken } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { type World, FORM, CIBA, payment } from './support/world.ts';

/**
 * Bad input on `POST /redeem`: the JSON body, client authentication, forged and foreign tokens,
 * and details that differ from the approved ones by a byte.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Afterwards, the approval the cases attacked is still redeemable by its client, once.
 */

const APPROVED_DETAILS = [payment({ transaction_id: 'txn_approved_a' })];
const redeemPath = () => '/redeem';
const redeemBody =
  (overrides: Record<string, unknown> = {}) =>
  (w: World) => ({ token: w.approvedToken, authorization_details: APPROVED_DETAILS, ...overrides });

const redeemAttacks: Attack[] = [
  { name: 'no client authentication', request: json('POST', redeemPath, redeemBody(), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: json('POST', redeemPath, redeemBody(), { auth: (w) => basic({ ...w.a, client_secret: 'wrong' }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'Basic header garbage', request: json('POST', redeemPath, redeemBody(), { auth: () => 'Basic %%%' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a form body instead of JSON', request: json('POST', redeemPath, (w) => new URLSearchParams({ token: w.approvedToken }).toString(), { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'no content type', request: (w) => ({ ...json('POST', redeemPath, redeemBody())(w), headers: { authorization: basic(w.a) } }), status: 415, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: json('POST', redeemPath, () => '{"token": '), status: 400, error: 'invalid_request' },
  { name: 'JSON with a trailing comma', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}",}`), status: 400, error: 'invalid_request' },
  { name: 'an empty body', request: json('POST', redeemPath, () => ''), status: 400, error: 'invalid_request' },
  { name: 'a JSON array where an object is expected', request: json('POST', redeemPath, (w) => [redeemBody()(w)]), status: 400, error: 'invalid_request' },
  { name: 'JSON null', request: json('POST', redeemPath, () => 'null'), status: 400, error: 'invalid_request' },
  { name: 'a JSON string', request: json('POST', redeemPath, (w) => JSON.stringify(w.approvedToken)), status: 400, error: 'invalid_request' },
  { name: 'an unknown field', request: json('POST', redeemPath, redeemBody({ amount_minor: 1 })), status: 400, error: 'invalid_request' },
  { name: 'current_versions naming __proto__ (a plain object would drop it)', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS)},"current_versions":{"__proto__":"17"}}`), status: 400, error: 'invalid_request' },
  { name: 'an unknown field with a 5,000-character name, not echoed back', request: json('POST', redeemPath, redeemBody({ [`u${'\\'.repeat(4999)}`]: 1 })), status: 400, error: 'invalid_request' },
  { name: 'no token', request: json('POST', redeemPath, () => ({ authorization_details: APPROVED_DETAILS })), status: 400, error: 'invalid_request' },
  { name: 'an empty token', request: json('POST', redeemPath, redeemBody({ token: '' })), status: 400, error: 'invalid_request' },
  { name: 'a token that is a number', request: json('POST', redeemPath, redeemBody({ token: 1 })), status: 400, error: 'invalid_request' },
  // An approval token carries its action, so one of 10 KB is allowed in form: this one is not a JWT.
  { name: 'a token of 10 KB that is not a JWT', request: json('POST', redeemPath, redeemBody({ token: 'a'.repeat(10_240) })), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'a body over 64 KB (a token that long)', request: json('POST', redeemPath, redeemBody({ token: 'a'.repeat(70_000) })), status: 413, error: 'request_too_large' },
  { name: 'a token that is not a JWT', request: json('POST', redeemPath, redeemBody({ token: 'not-a-jwt' })), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'an unsigned token (alg none)', request: json('POST', redeemPath, (w) => redeemBody({ token: unsignedToken(w) })(w)), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'a token whose claims were changed after signing', request: json('POST', redeemPath, (w) => redeemBody({ token: tamperedToken(w) })(w)), status: 401, error: 'invalid_token', challenge: BEARER_CHALLENGE },
  { name: 'a token from another client', request: json('POST', redeemPath, redeemBody(), { auth: (w) => basic(w.b) }), status: 403, error: 'unauthorized_client' },
  { name: "a token from another tenant's client", request: json('POST', redeemPath, redeemBody(), { auth: (w) => basic(w.c) }), status: 403, error: 'unauthorized_client' },
  { name: 'an amount one minor unit higher', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', amount_minor: 49001 })] })), status: 400, error: 'approval_mismatch' },
  { name: 'details with an unknown field', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', memo: 'x' })] })), status: 400, error: 'approval_mismatch' },
  { name: 'details as an object, not an array', request: json('POST', redeemPath, redeemBody({ authorization_details: APPROVED_DETAILS[0] })), status: 400, error: 'approval_mismatch' },
  { name: 'no details', request: json('POST', redeemPath, (w) => ({ token: w.approvedToken })), status: 400, error: 'invalid_request' },
  // The executor redeems exactly what was approved, byte for byte (docs/security.md).
  { name: 'a body with token named twice', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS)}}`), status: 400, error: 'invalid_request' },
  { name: 'details with amount_minor named twice', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS).replace('"amount_minor":49000', '"amount_minor":49000,"amount_minor":49000')}}`), status: 400, error: 'invalid_request' },
  { name: 'the approved amount spelled 49000.0', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${JSON.stringify(APPROVED_DETAILS).replace('"amount_minor":49000', '"amount_minor":49000.0')}}`), status: 400, error: 'approval_mismatch' },
  { name: 'the approved payee name with a trailing space', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', payee: { id: 'acct_77', name: 'ACME Ltd ' } })] })), status: 400, error: 'approval_mismatch' },
  { name: 'the approved purpose with two spaces where it has one', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', purpose: 'Refund  for order 1042' })] })), status: 400, error: 'approval_mismatch' },
  { name: 'details nested 10,000 deep', request: json('POST', redeemPath, (w) => `{"token":"${w.approvedToken}","authorization_details":${deep(10_000)}}`), status: 400, error: 'approval_mismatch' },
  { name: 'a body over 64 KB', request: json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', purpose: 'x'.repeat(70_000) })] })), status: 413, error: 'request_too_large' },
  { name: 'a body over 64 KB, streamed without Content-Length', request: (w) => ({ ...json('POST', redeemPath, redeemBody({ authorization_details: [payment({ transaction_id: 'txn_approved_a', purpose: 'x'.repeat(70_000) })] }))(w), stream: true }), status: 413, error: 'request_too_large' },
];

const TABLES: [string, Attack[]][] = [['POST /redeem', redeemAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));

  describe('and afterwards', () => {
    const { w } = attacked;

    it('still lets alice approve her pending request, and client A collect and redeem its approval once', async () => {
      expect((await w.h.decide(w.alice, w.pendingA, 'approve')).status).toBe(200);
      w.h.clock.advance(10);
      const polled = await send(w.h, token(() => ({ grant_type: CIBA, auth_req_id: w.pendingA }))(w));
      expect(polled.status, polled.text).toBe(200);
      // The token the /redeem cases attacked is still redeemable, by its client, exactly once.
      const first = await send(w.h, json('POST', redeemPath, redeemBody())(w));
      expect(first.status, first.text).toBe(200);
      const second = await send(w.h, json('POST', redeemPath, redeemBody())(w));
      expect([second.status, second.body.error]).toEqual([409, 'already_redeemed']);
    });
  });
});
