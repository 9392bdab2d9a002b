import { describe, expect, it } from 'vitest';
import { send } from '../support/raw-request.ts';
import { type Attack, EVIL, type DeviceCall, device } from './support/requests.ts';
import { attackedWorld, expectRefused, STORES } from './support/suite.ts';
import { FORM } from './support/world.ts';

/**
 * Bad input on the device endpoints a session opens: `PUT /api/device/push-subscription`
 * (sessions, Origins, endpoints, keys) and `GET /api/device/*` (sessions, other users' ids).
 * Each case is sent to a world of its own and must be refused, changing nothing
 * (`support/suite.ts` says what that means and why).
 * Afterwards, the subscription and admin bodies the cases were derived from are still valid.
 */

const SUBSCRIPTION = {
  endpoint: 'https://push.example/send/abc',
  expirationTime: null,
  keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
};

function subscribe(body: unknown, options: Partial<DeviceCall> = {}) {
  return device((w) => ({ method: 'PUT', path: '/push-subscription', body, as: w.alice, ...options }));
}

const pushAttacks: Attack[] = [
  { name: 'no session cookie', request: subscribe(SUBSCRIPTION, { as: undefined }), status: 401, error: 'login_required' },
  { name: 'an unknown session cookie', request: subscribe(SUBSCRIPTION, { as: `cs_device=${'s'.repeat(43)}` }), status: 401, error: 'login_required' },
  { name: 'a session cookie of 10 KB', request: subscribe(SUBSCRIPTION, { as: `cs_device=${'s'.repeat(10_240)}` }), status: 401, error: 'login_required' },
  { name: 'a session cookie with braces (a key injection)', request: subscribe(SUBSCRIPTION, { as: 'cs_device=abc}:{x' }), status: 401, error: 'login_required' },
  { name: 'a session but no Origin', request: subscribe(SUBSCRIPTION, { origin: null }), status: 403, error: 'invalid_origin' },
  { name: 'a session from another Origin', request: subscribe(SUBSCRIPTION, { origin: EVIL }), status: 403, error: 'invalid_origin' },
  { name: 'no session and no Origin', request: subscribe(SUBSCRIPTION, { as: undefined, origin: null }), status: 403, error: 'invalid_origin' },
  { name: 'an http: endpoint', request: subscribe({ ...SUBSCRIPTION, endpoint: 'http://push.example/send/abc' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint on the metadata service over http:', request: subscribe({ ...SUBSCRIPTION, endpoint: 'http://169.254.169.254/latest/meta-data' }), status: 400, error: 'invalid_request' },
  { name: 'a javascript: endpoint', request: subscribe({ ...SUBSCRIPTION, endpoint: 'javascript:alert(1)' }), status: 400, error: 'invalid_request' },
  { name: 'a file: endpoint', request: subscribe({ ...SUBSCRIPTION, endpoint: 'file:///etc/passwd' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint with credentials', request: subscribe({ ...SUBSCRIPTION, endpoint: 'https://user:pass@push.example/send/abc' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint that is not a URL', request: subscribe({ ...SUBSCRIPTION, endpoint: 'not a url' }), status: 400, error: 'invalid_request' },
  { name: 'an endpoint of 3,000 characters', request: subscribe({ ...SUBSCRIPTION, endpoint: `https://push.example/${'e'.repeat(3000)}` }), status: 400, error: 'invalid_request' },
  { name: 'missing keys', request: subscribe({ endpoint: SUBSCRIPTION.endpoint }), status: 400, error: 'invalid_request' },
  { name: 'a missing auth key', request: subscribe({ ...SUBSCRIPTION, keys: { p256dh: SUBSCRIPTION.keys.p256dh } }), status: 400, error: 'invalid_request' },
  { name: 'a p256dh that is not base64url', request: subscribe({ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, p256dh: `${'+'.repeat(87)}` } }), status: 400, error: 'invalid_request' },
  { name: 'an auth secret of 10 KB', request: subscribe({ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, auth: 'A'.repeat(10_240) } }), status: 400, error: 'invalid_request' },
  { name: 'an extra field', request: subscribe({ ...SUBSCRIPTION, device_id: 'dev_other' }), status: 400, error: 'invalid_request' },
  { name: 'an extra field in keys', request: subscribe({ ...SUBSCRIPTION, keys: { ...SUBSCRIPTION.keys, extra: 'x' } }), status: 400, error: 'invalid_request' },
  { name: 'a negative expirationTime', request: subscribe({ ...SUBSCRIPTION, expirationTime: -1 }), status: 400, error: 'invalid_request' },
  { name: 'an expirationTime that is a string', request: subscribe({ ...SUBSCRIPTION, expirationTime: 'tomorrow' }), status: 400, error: 'invalid_request' },
  { name: 'a JSON array', request: subscribe([SUBSCRIPTION]), status: 400, error: 'invalid_request' },
  { name: 'JSON that is not valid', request: subscribe('{"endpoint":'), status: 400, error: 'invalid_request' },
  { name: 'a form body', request: subscribe('endpoint=https%3A%2F%2Fpush.example', { type: FORM }), status: 415, error: 'invalid_request' },
  { name: 'a body over 64 KB', request: subscribe({ ...SUBSCRIPTION, endpoint: `https://push.example/${'e'.repeat(70_000)}` }), status: 413, error: 'request_too_large' },
];

const deviceReadAttacks: Attack[] = [
  { name: 'the inbox without a session', request: device(() => ({ method: 'GET', path: '/requests' })), status: 401, error: 'login_required' },
  { name: 'the inbox with an unknown session', request: device(() => ({ method: 'GET', path: '/requests', as: `cs_device=${'s'.repeat(43)}` })), status: 401, error: 'login_required' },
  { name: 'the inbox with an empty cookie', request: device(() => ({ method: 'GET', path: '/requests', as: 'cs_device=' })), status: 401, error: 'login_required' },
  { name: 'me without a session', request: device(() => ({ method: 'GET', path: '/me' })), status: 401, error: 'login_required' },
  { name: 'the event stream without a session', request: device(() => ({ method: 'GET', path: '/events' })), status: 401, error: 'login_required' },
  { name: 'a request without a session', request: device((w) => ({ method: 'GET', path: `/requests/${w.pendingA}` })), status: 401, error: 'login_required' },
  { name: "another user's request", request: device((w) => ({ method: 'GET', path: `/requests/${w.pendingA}`, as: w.bob })), status: 404, error: 'not_found' },
  { name: 'an unknown request', request: device((w) => ({ method: 'GET', path: `/requests/${'u'.repeat(43)}`, as: w.alice })), status: 404, error: 'not_found' },
  { name: 'a request id of 10 KB', request: device((w) => ({ method: 'GET', path: `/requests/${'u'.repeat(10_240)}`, as: w.alice })), status: 404, error: 'not_found' },
  { name: 'a request id with a malformed percent escape', request: device((w) => ({ method: 'GET', path: '/requests/%zz', as: w.alice })), status: 404, error: 'not_found' },
  { name: 'a request id with an encoded brace', request: device((w) => ({ method: 'GET', path: `/requests/${w.pendingA}%7D`, as: w.bob })), status: 404, error: 'not_found' },
];

const TABLES: [string, Attack[]][] = [
  ['PUT /api/device/push-subscription', pushAttacks],
  ['GET /api/device/*', deviceReadAttacks],
];

describe.each(STORES)('bad input on every endpoint (%s store)', (storeKind) => {
  const attacked = attackedWorld(storeKind);
  describe.each(TABLES)('%s', (_table, attacks) => it.each(attacks)('refuses $name, changing nothing', (attack) => expectRefused(attacked, attack)));

  describe('and afterwards', () => {
    const { w } = attacked;

    it('still accepts the valid push subscription and admin bodies the cases were derived from', async () => {
      expect((await send(w.h, await subscribe(SUBSCRIPTION)(w))).status).toBe(204);
      expect((await w.h.admin('POST', '/clients', { name: 'Agent D' })).status).toBe(201);
      expect((await w.h.admin('POST', '/users', { sub: 'newcomer' })).status).toBe(201);
      expect((await w.h.admin('POST', '/users/newcomer/enrollments', { tenant: 'default' })).status).toBe(201);
    });
  });
});
