import { describe, it } from 'vitest';
import { type Attack, admin } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { TENANT_ACME, FORM } from './support/world.ts';

/**
 * Bad bodies and parameters on `/api/admin/*`: clients, users, enrollments, requests and audits
 * with unknown fields, invalid tenants, key injections and wrong content types.
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 */

const adminBodyAttacks: Attack[] = [
  { name: 'a client with an unknown field', request: admin('POST', () => '/clients', { name: 'Agent', secret: 'chosen' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an invalid tenant (upper case)', request: admin('POST', () => '/clients', { name: 'Agent', tenant: 'Default' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an invalid tenant (braces, a key injection)', request: admin('POST', () => '/clients', { name: 'Agent', tenant: 'a}:{b' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an invalid tenant (41 characters)', request: admin('POST', () => '/clients', { name: 'Agent', tenant: 't'.repeat(41) }), status: 400, error: 'invalid_request' },
  { name: 'a client with an empty name', request: admin('POST', () => '/clients', { name: '' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a name of 81 characters', request: admin('POST', () => '/clients', { name: 'n'.repeat(81) }), status: 400, error: 'invalid_request' },
  { name: 'a client with a bidi override in its name (shown to the person)', request: admin('POST', () => '/clients', { name: 'Support \u202Etnega' }), status: 400, error: 'invalid_request' },
  { name: 'a client with an unknown delivery mode', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'pigeon' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a ftp: notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', backchannel_client_notification_endpoint: 'ftp://agent.example/cb' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a notification endpoint that is not a URL', request: admin('POST', () => '/clients', { name: 'Agent', backchannel_client_notification_endpoint: 'not a url' }), status: 400, error: 'invalid_request' },
  { name: 'a client with a remote http: notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', backchannel_client_notification_endpoint: 'http://agent.example/cb' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a client with a cloud metadata notification endpoint over http', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://169.254.169.254/latest/meta-data/' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a client with a decimal-spelled private notification endpoint over http', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://167772161/cb' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a client with user:pass@ in its notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://agent:s3cret@localhost:9/cb' }), status: 400, error: 'invalid_client_metadata' },
  { name: 'a ping client without a notification endpoint', request: admin('POST', () => '/clients', { name: 'Agent', token_delivery_mode: 'ping' }), status: 400, error: 'invalid_request' },
  { name: 'a client as a JSON array', request: admin('POST', () => '/clients', [{ name: 'Agent' }]), status: 400, error: 'invalid_request' },
  { name: 'a client with JSON that is not valid', request: admin('POST', () => '/clients', '{"name":'), status: 400, error: 'invalid_request' },
  { name: 'a client with a form body', request: admin('POST', () => '/clients', 'name=Agent', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'a client with a body over 64 KB', request: admin('POST', () => '/clients', { name: 'n'.repeat(70_000) }), status: 413, error: 'request_too_large' },
  { name: 'a user with an unknown field', request: admin('POST', () => '/users', { sub: 'newcomer', role: 'admin' }), status: 400, error: 'invalid_request' },
  { name: 'a user with an invalid tenant', request: admin('POST', () => '/users', { sub: 'newcomer', tenant: '../other' }), status: 400, error: 'invalid_request' },
  { name: 'a user whose sub has braces (a key injection)', request: admin('POST', () => '/users', { sub: 'alice}:{x' }), status: 400, error: 'invalid_request' },
  { name: 'a user whose sub is 129 characters', request: admin('POST', () => '/users', { sub: 's'.repeat(129) }), status: 400, error: 'invalid_request' },
  { name: 'a user without a sub', request: admin('POST', () => '/users', { display_name: 'Nobody' }), status: 400, error: 'invalid_request' },
  { name: 'a user with a control character in the display name', request: admin('POST', () => '/users', { sub: 'newcomer', display_name: 'New\u0000comer' }), status: 400, error: 'invalid_request' },
  { name: 'a user as a JSON array', request: admin('POST', () => '/users', [{ sub: 'newcomer' }]), status: 400, error: 'invalid_request' },
  { name: 'a user with a form body', request: admin('POST', () => '/users', 'sub=newcomer', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'an enrollment for an unknown user', request: admin('POST', () => '/users/mallory/enrollments'), status: 404, error: 'not_found' },
  { name: 'an enrollment for a sub with braces', request: admin('POST', () => '/users/alice%7D%3A%7Bx/enrollments'), status: 404, error: 'not_found' },
  { name: 'an enrollment for a sub of 10 KB', request: admin('POST', () => `/users/${'s'.repeat(10_240)}/enrollments`), status: 404, error: 'not_found' },
  { name: 'an enrollment with an unknown field', request: admin('POST', () => '/users/alice/enrollments', { tenant: 'default', sub: 'bob' }), status: 400, error: 'invalid_request' },
  { name: 'an enrollment with an invalid tenant', request: admin('POST', () => '/users/alice/enrollments', { tenant: 'DEFAULT' }), status: 400, error: 'invalid_request' },
  { name: "an enrollment in another tenant than the user's", request: admin('POST', () => '/users/bob/enrollments', { tenant: TENANT_ACME }), status: 404, error: 'not_found' },
  { name: 'an enrollment with JSON that is not valid', request: admin('POST', () => '/users/alice/enrollments', '{"tenant"'), status: 400, error: 'invalid_request' },
  { name: 'an enrollment with a JSON array', request: admin('POST', () => '/users/alice/enrollments', '[]'), status: 400, error: 'invalid_request' },
  { name: 'an enrollment with a form body', request: admin('POST', () => '/users/alice/enrollments', 'tenant=default', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'a request that is unknown', request: admin('GET', () => `/requests/${'u'.repeat(43)}`), status: 404, error: 'not_found' },
  { name: 'a request id of 10 KB', request: admin('GET', () => `/requests/${'u'.repeat(10_240)}`), status: 404, error: 'not_found' },
  { name: 'a request with an invalid tenant', request: admin('GET', (w) => `/requests/${w.pendingA}?tenant=a%7D%3A%7Bb`), status: 400, error: 'invalid_request' },
  { name: 'a request looked up in another tenant', request: admin('GET', (w) => `/requests/${w.pendingA}?tenant=${TENANT_ACME}`), status: 404, error: 'not_found' },
  { name: 'an audit without auth_req_id', request: admin('GET', () => '/audit'), status: 400, error: 'invalid_request' },
  { name: 'an audit with an auth_req_id of 10 KB', request: admin('GET', () => `/audit?auth_req_id=${'u'.repeat(10_240)}`), status: 400, error: 'invalid_request' },
  { name: 'an audit with a malformed percent escape', request: admin('GET', () => '/audit?auth_req_id=%zz'), status: 400, error: 'invalid_request' },
  { name: 'an audit with an invalid tenant', request: admin('GET', (w) => `/audit?auth_req_id=${w.pendingA}&tenant=NOPE`), status: 400, error: 'invalid_request' },
];

const TABLES: [string, Attack[]][] = [['/api/admin/*: bodies and parameters', adminBodyAttacks]];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));
});
