import { describe, it } from 'vitest';
import { basic } from '../support/raw-request.ts';
import { type Attack, BASIC_CHALLENGE, detailsWith, withRawByte, bc, formText } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { JSON_TYPE, bcParams } from './support/world.ts';

/**
 * Bad input on `POST /bc-authorize` before its parameters are read: the body, its content type
 * and encoding, repeated and unknown parameters, and client authentication that fails.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 */

const bcContent: Attack[] = [
  { name: 'a JSON body instead of a form', request: (w) => bc(JSON.stringify(bcParams()), { type: JSON_TYPE })(w), status: 415, error: 'invalid_request' },
  { name: 'no content type', request: (w) => ({ ...bc(bcParams())(w), headers: { authorization: basic(w.a) } }), status: 415, error: 'invalid_request' },
  { name: 'text/plain', request: bc(bcParams(), { type: 'text/plain' }), status: 415, error: 'invalid_request' },
  { name: 'multipart/form-data', request: bc('--x\r\ncontent-disposition: form-data; name="scope"\r\n\r\nopenid\r\n--x--', { type: 'multipart/form-data; boundary=x' }), status: 415, error: 'invalid_request' },
  { name: 'a content type that only starts like a form', request: bc(bcParams(), { type: 'application/x-www-form-urlencodedx' }), status: 415, error: 'invalid_request' },
  { name: 'a malformed percent escape (%zz) in a value', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=Refund%zz1042')), status: 400, error: 'invalid_request' },
  { name: 'a malformed percent escape (%zz) in a name', request: bc(formText(bcParams({ scope: undefined }), 'sc%zzope=openid')), status: 400, error: 'invalid_request' },
  { name: 'a truncated percent escape (%4) at the end', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=Refund%4')), status: 400, error: 'invalid_request' },
  { name: 'percent-encoded bytes that are not UTF-8 (%ff)', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=Refund%ff')), status: 400, error: 'invalid_request' },
  { name: 'an overlong UTF-8 encoding (%c0%af)', request: bc(formText(bcParams({ binding_message: undefined }), 'binding_message=a%c0%afb')), status: 400, error: 'invalid_request' },
  { name: 'a repeated scope', request: bc(formText(bcParams(), 'scope=openid')), status: 400, error: 'invalid_request' },
  { name: 'a repeated authorization_details', request: bc(formText(bcParams(), `authorization_details=${encodeURIComponent(detailsWith({}))}`)), status: 400, error: 'invalid_request' },
  { name: 'a repeated login_hint (two login hints)', request: bc(formText(bcParams(), 'login_hint=bob')), status: 400, error: 'invalid_request' },
  { name: 'an unknown parameter', request: bc(bcParams({ amount: '1' })), status: 400, error: 'invalid_request' },
  // A plain object would take `__proto__` as its prototype: the parameter dropped, a repeat of it let through.
  { name: 'a __proto__ parameter (unknown like any other)', request: bc(formText(bcParams(), '__proto__=x')), status: 400, error: 'invalid_request' },
  { name: 'a repeated __proto__ parameter', request: bc(formText(bcParams(), '__proto__=x', '__proto__=y')), status: 400, error: 'invalid_request' },
  { name: 'a constructor parameter', request: bc(formText(bcParams(), 'constructor=x')), status: 400, error: 'invalid_request' },
  { name: 'an unknown parameter with a 5,000-character name, not echoed back', request: bc(bcParams({ [`x${'"'.repeat(4999)}`]: '1' })), status: 400, error: 'invalid_request' },
  { name: 'a parameter with an empty name', request: bc(formText(bcParams(), '=openid')), status: 400, error: 'invalid_request' },
  { name: 'an empty form', request: bc(''), status: 400, error: 'invalid_scope' },
  { name: 'a body over 64 KB', request: bc(bcParams({ binding_message: 'x'.repeat(70_000) })), status: 413, error: 'request_too_large' },
  { name: 'a body over 64 KB, streamed without Content-Length', request: (w) => ({ ...bc(bcParams({ binding_message: 'x'.repeat(70_000) }))(w), stream: true }), status: 413, error: 'request_too_large' },
  { name: 'raw bytes that are not UTF-8 in the purpose', request: (w) => ({ ...bc('')(w), bytes: withRawByte(new URLSearchParams(bcParams({ authorization_details: detailsWith({ purpose: 'Refund #' }) })).toString(), '%23', 0xff) }), status: 400, error: 'invalid_request' },
];

const bcAuth: Attack[] = [
  { name: 'no client authentication', request: bc(bcParams(), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: bc(bcParams(), { auth: (w) => basic({ ...w.a, client_secret: `${w.a.client_secret}x` }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: "another client's secret", request: bc(bcParams(), { auth: (w) => basic({ ...w.a, client_secret: w.b.client_secret }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'an unknown client id', request: bc(bcParams(), { auth: (w) => basic({ client_id: 'cli_unknown', client_secret: w.a.client_secret }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'Basic header garbage', request: bc(bcParams(), { auth: () => 'Basic !!!not-base64!!!' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Basic header without a colon', request: bc(bcParams(), { auth: () => `Basic ${Buffer.from('no-colon-here').toString('base64')}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Basic header with a malformed percent escape', request: bc(bcParams(), { auth: (w) => `Basic ${Buffer.from(`${w.a.client_id}%zz:${w.a.client_secret}`).toString('base64')}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Basic header of bytes that are not UTF-8', request: bc(bcParams(), { auth: () => `Basic ${Buffer.from([0xff, 0xfe, 0x3a, 0xc0]).toString('base64')}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a 10 KB Basic header', request: bc(bcParams(), { auth: () => `Basic ${'QUFB'.repeat(2560)}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'an empty Authorization header', request: bc(bcParams(), { auth: () => '' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a Bearer token instead of client credentials', request: bc(bcParams(), { auth: (w) => `Bearer ${w.approvedToken}` }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'client_secret_post with a wrong secret', request: (w) => bc(bcParams({ client_id: w.a.client_id, client_secret: 'wrong' }), { auth: () => undefined })(w), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a client_id without a secret', request: (w) => bc(bcParams({ client_id: w.a.client_id }), { auth: () => undefined })(w), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'two authentication methods at once', request: (w) => bc(bcParams({ client_id: w.a.client_id, client_secret: w.a.client_secret }))(w), status: 400, error: 'invalid_request' },
  { name: "a form client_id naming another client than the Basic header's", request: (w) => bc(bcParams({ client_id: w.b.client_id }))(w), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
];

const TABLES: [string, Attack[]][] = [
  ['POST /bc-authorize: body and content type', bcContent],
  ['POST /bc-authorize: client authentication', bcAuth],
];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
