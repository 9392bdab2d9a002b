import { describe, expect, it } from 'vitest';
import type { EnrolledUser } from '../support/harness.ts';
import { basic, send } from '../support/raw-request.ts';
import { type Attack, bc } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { payment, bcParams } from './support/world.ts';

/**
 * Bad CIBA parameters on `POST /bc-authorize`: scope, login hints, the user, binding_message,
 * requested_expiry, client_notification_token, a known transaction with other details.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Afterwards, the baseline form is still valid and the inboxes hold what they held.
 */

const bcParameters: Attack[] = [
  { name: 'a missing scope', request: bc(bcParams({ scope: undefined })), status: 400, error: 'invalid_scope' },
  { name: 'a scope without openid', request: bc(bcParams({ scope: 'payments' })), status: 400, error: 'invalid_scope' },
  { name: 'a scope that only contains openid as a substring', request: bc(bcParams({ scope: 'openidx' })), status: 400, error: 'invalid_scope' },
  { name: 'a scope with a tab', request: bc(bcParams({ scope: 'openid\tpayments' })), status: 400, error: 'invalid_scope' },
  { name: 'a scope of 600 characters', request: bc(bcParams({ scope: `openid ${'a'.repeat(600)}` })), status: 400, error: 'invalid_scope' },
  { name: 'two login hints (login_hint and id_token_hint)', request: bc(bcParams({ id_token_hint: 'eyJ.x.y' })), status: 400, error: 'invalid_request' },
  { name: 'no login hint', request: bc(bcParams({ login_hint: undefined })), status: 400, error: 'invalid_request' },
  { name: 'login_hint_token instead of login_hint', request: bc(bcParams({ login_hint: undefined, login_hint_token: 'x' })), status: 400, error: 'invalid_request' },
  { name: 'an unknown user', request: bc(bcParams({ login_hint: 'mallory' })), status: 400, error: 'unknown_user_id' },
  { name: 'a user without a device', request: (w) => bc(bcParams({ login_hint: w.deviceless }))(w), status: 400, error: 'unknown_user_id' },
  { name: 'a user of another tenant', request: (w) => bc(bcParams(), { auth: () => basic(w.c) })(w), status: 400, error: 'unknown_user_id' },
  { name: 'a login_hint with braces (a key injection)', request: bc(bcParams({ login_hint: 'alice}:x{' })), status: 400, error: 'unknown_user_id' },
  { name: 'a login_hint of 10 KB', request: bc(bcParams({ login_hint: 'a'.repeat(10_240) })), status: 400, error: 'unknown_user_id' },
  { name: 'a user_code', request: bc(bcParams({ user_code: '1234' })), status: 400, error: 'invalid_request' },
  { name: 'a binding_message with an emoji', request: bc(bcParams({ binding_message: 'Refund 1042 \u{1F4B8}' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a control character', request: bc(bcParams({ binding_message: 'Refund\u00071042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a line break', request: bc(bcParams({ binding_message: 'Refund\n1042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a NUL', request: bc(bcParams({ binding_message: 'Refund\u00001042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a bidi override', request: bc(bcParams({ binding_message: 'Refund \u202E2401' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a zero-width space', request: bc(bcParams({ binding_message: 'Ref\u200Bund' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message of 65 characters', request: bc(bcParams({ binding_message: 'a'.repeat(65) })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with Arabic-Indic digits (١٠٤٢ reads as another number)', request: bc(bcParams({ binding_message: 'Refund \u0661\u0660\u0664\u0662' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with fullwidth digits', request: bc(bcParams({ binding_message: 'Refund \uFF11\uFF10\uFF14\uFF12' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message with a Hangul filler', request: bc(bcParams({ binding_message: 'Refund\u31641042' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message of 5,000 characters', request: bc(bcParams({ binding_message: 'a'.repeat(5000) })), status: 400, error: 'invalid_binding_message' },
  { name: 'an empty binding_message', request: bc(bcParams({ binding_message: '' })), status: 400, error: 'invalid_binding_message' },
  { name: 'a binding_message of nothing but spaces', request: bc(bcParams({ binding_message: '   ' })), status: 400, error: 'invalid_binding_message' },
  { name: 'requested_expiry 0', request: bc(bcParams({ requested_expiry: '0' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry -1', request: bc(bcParams({ requested_expiry: '-1' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry 1.5', request: bc(bcParams({ requested_expiry: '1.5' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry 999999', request: bc(bcParams({ requested_expiry: '999999' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry 1e3', request: bc(bcParams({ requested_expiry: '1e3' })), status: 400, error: 'invalid_request' },
  { name: 'requested_expiry beyond the maximum (601)', request: bc(bcParams({ requested_expiry: '601' })), status: 400, error: 'invalid_request' },
  { name: 'an empty requested_expiry', request: bc(bcParams({ requested_expiry: '' })), status: 400, error: 'invalid_request' },
  { name: 'a client_notification_token with a space', request: bc(bcParams({ client_notification_token: 'a b' })), status: 400, error: 'invalid_request' },
  { name: 'a client_notification_token of 2,000 characters', request: bc(bcParams({ client_notification_token: 'a'.repeat(2000) })), status: 400, error: 'invalid_request' },
  { name: 'a known transaction_id with other details', request: bc(bcParams({ authorization_details: JSON.stringify([payment({ transaction_id: 'txn_pending_a', amount_minor: 49001 })]) })), status: 409, error: 'transaction_conflict' },
];

const TABLES: [string, Attack[]][] = [['POST /bc-authorize: parameters', bcParameters]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));

  describe('and afterwards', () => {
    const { w } = attacked;
    const device = (user: EnrolledUser, method: string, path: string, body?: unknown) => w.h.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: w.h.issuer } });

    it('still shows each person exactly their own pending requests, and a valid request adds exactly one', async () => {
      const ids = async (user: EnrolledUser) => ((await device(user, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id).sort();
      expect(await ids(w.alice)).toEqual([w.pendingA]);
      expect(await ids(w.bob)).toEqual([w.pendingBob]);
      // The baseline every /bc-authorize case was derived from is valid.
      const fresh = await send(w.h, bc(bcParams())(w));
      expect(fresh.status, fresh.text).toBe(200);
      expect(await ids(w.alice)).toEqual([w.pendingA, fresh.body.auth_req_id].sort());
      expect(await ids(w.bob)).toEqual([w.pendingBob]);
    });
  });
});
