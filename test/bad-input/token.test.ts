import { describe, it } from 'vitest';
import { basic } from '../support/raw-request.ts';
import { type Attack, BASIC_CHALLENGE, token } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { JSON_TYPE, CIBA } from './support/world.ts';

/**
 * Bad input on `POST /token`: the form, client authentication, grant types, and auth_req_ids that
 * are unknown, malformed or another client's.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 */

const tokenAttacks: Attack[] = [
  { name: 'a JSON body instead of a form', request: token((w) => JSON.stringify({ grant_type: CIBA, auth_req_id: w.approvedA }), { type: JSON_TYPE }), status: 415, error: 'invalid_request' },
  { name: 'a malformed percent escape (%zz)', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.approvedA}%zz`), status: 400, error: 'invalid_request' },
  { name: 'a repeated auth_req_id', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.pendingA}&auth_req_id=${w.approvedA}`), status: 400, error: 'invalid_request' },
  { name: 'a repeated grant_type', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.approvedA}`), status: 400, error: 'invalid_request' },
  { name: 'a repeated __proto__ parameter', request: token((w) => `grant_type=${encodeURIComponent(CIBA)}&auth_req_id=${w.approvedA}&__proto__=x&__proto__=y`), status: 400, error: 'invalid_request' },
  { name: 'no client authentication', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: () => undefined }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'a wrong client secret', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: (w) => basic({ ...w.a, client_secret: 'wrong' }) }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'Basic header garbage', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: () => 'Basic ===' }), status: 401, error: 'invalid_client', challenge: BASIC_CHALLENGE },
  { name: 'no grant_type', request: token((w) => ({ auth_req_id: w.approvedA })), status: 400, error: 'invalid_request' },
  { name: 'a non-CIBA grant_type (authorization_code)', request: token((w) => ({ grant_type: 'authorization_code', auth_req_id: w.approvedA, code: 'x' })), status: 400, error: 'unsupported_grant_type' },
  { name: 'a non-CIBA grant_type (client_credentials)', request: token(() => ({ grant_type: 'client_credentials' })), status: 400, error: 'unsupported_grant_type' },
  { name: 'a CIBA grant_type with a trailing space', request: token((w) => ({ grant_type: `${CIBA} `, auth_req_id: w.approvedA })), status: 400, error: 'unsupported_grant_type' },
  { name: 'no auth_req_id', request: token(() => ({ grant_type: CIBA })), status: 400, error: 'invalid_request' },
  { name: 'an auth_req_id of 10 KB', request: token(() => ({ grant_type: CIBA, auth_req_id: 'A'.repeat(10_240) })), status: 400, error: 'invalid_grant' },
  { name: 'an unknown auth_req_id', request: token(() => ({ grant_type: CIBA, auth_req_id: 'x'.repeat(43) })), status: 400, error: 'invalid_grant' },
  { name: 'an auth_req_id with braces (a key injection)', request: token((w) => ({ grant_type: CIBA, auth_req_id: `${w.approvedA}}:{x` })), status: 400, error: 'invalid_grant' },
  { name: "another client's auth_req_id", request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA }), { auth: (w) => basic(w.b) }), status: 400, error: 'invalid_grant' },
  { name: "another tenant's client polling an auth_req_id", request: token((w) => ({ grant_type: CIBA, auth_req_id: w.pendingA }), { auth: (w) => basic(w.c) }), status: 400, error: 'invalid_grant' },
  { name: 'a body over 64 KB', request: token((w) => ({ grant_type: CIBA, auth_req_id: w.approvedA, pad: 'x'.repeat(70_000) })), status: 413, error: 'request_too_large' },
];

const TABLES: [string, Attack[]][] = [['POST /token', tokenAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
