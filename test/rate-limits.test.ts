import { keys, OffsetClock } from '@countersign/server';
import { afterEach, describe, expect, it } from 'vitest';
import { bcAuthorize, device, pay, pollToken, testPolicy, watchAudit, type SeenEvent } from './guarantees/policy-support.ts';
import { openEventStream } from './support/cluster.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';
import { recordWrites } from './support/store-watch.ts';

/**
 * Refusals and views cannot grow storage without bound (docs/security.md). Rate limits per client
 * (`/bc-authorize`, `/token`, `/redeem`), per source address (failed client and admin
 * authentication, wrong enrollment codes) and per device session (request views, state-changing
 * calls, event streams): over a limit the answer
 * is 429 with `Retry-After` and an OAuth body, and the only thing written is the limit's counter.
 * On the memory store and on Redis.
 */

/** A clock that stands still until told: every `Retry-After` below is exact. */
class StillClock extends OffsetClock {
  #now = Date.now();
  override now(): number {
    return this.#now;
  }
  override advance(seconds: number): void {
    this.#now += seconds * 1000;
  }
}

/** Every limit at 3 per 60 s: three calls at once, then one every 20 s. */
const LIMITS = {
  RATE_LIMIT_BC_AUTHORIZE: '3/60',
  RATE_LIMIT_TOKEN: '3/60',
  RATE_LIMIT_REDEEM: '3/60',
  RATE_LIMIT_OUTCOME: '3/60',
  RATE_LIMIT_CLIENT_AUTH_FAILURES: '3/60',
  RATE_LIMIT_ADMIN_AUTH_FAILURES: '3/60',
  RATE_LIMIT_DEVICE_VIEWS: '3/60',
  RATE_LIMIT_DEVICE_STREAMS: '6/60',
  RATE_LIMIT_DEVICE_CHANGES: '3/60',
  RATE_LIMIT_ENROLLMENT_FAILURES: '3/60',
  DEVICE_STREAMS_MAX: '2',
};

/**
 * Records the Store writes of one call (operation and key, as `recordWrites` classifies them from
 * the Store's type: a peek at a rate limit writes nothing), background work included.
 */
function watchWrites(harness: Harness) {
  return {
    /** Runs `call` and answers it with the writes it made, once its background work is done. */
    async during<T>(call: () => Promise<T>): Promise<{ result: T; writes: [string, string][] }> {
      // What earlier calls left to do in the background (pushes, audit batches) is not this call's.
      await harness.drain();
      const watch = recordWrites(harness.store);
      try {
        const result = await call();
        await harness.deps.background.drain();
        return { result, writes: watch.writes.map((write): [string, string] => [write.slice(0, write.indexOf(' ')), write.slice(write.indexOf(' ') + 1)]) };
      } finally {
        watch.stop();
      }
    },
  };
}

/** An over-limit answer: 429, `Retry-After` in seconds, an OAuth error body. */
function expectTooMany(answer: { status: number; body: any; headers: Headers }, error: string, retryAfter: number): void {
  expect(answer.status).toBe(429);
  expect(answer.headers.get('retry-after')).toBe(String(retryAfter));
  expect(answer.body).toStrictEqual({ error, error_description: expect.stringMatching(new RegExp(`Retry after ${retryAfter} s\\.$`)) });
}

type Client = { client_id: string; client_secret: string };
const basic = (client: Client, secret = client.client_secret) => `Basic ${Buffer.from(`${client.client_id}:${secret}`).toString('base64')}`;

describe.each(['memory', 'redis'] as const)('rate limits (%s store)', (storeKind) => {
  let harness: Harness;
  let clock: StillClock;
  let audit: SeenEvent[];
  let alice: EnrolledUser;
  let agent: Client;
  let other: Client;

  async function start(env: Record<string, string> = {}) {
    clock = new StillClock();
    harness = await createHarness({ store: storeKind, clock, env: { POLICY_FILE: testPolicy(), ...LIMITS, ...env } });
    alice = await harness.enrollUser('alice');
    agent = await harness.createClient('Refund agent');
    other = await harness.createClient('Billing agent');
    audit = watchAudit(harness);
  }
  afterEach(() => harness?.close());

  /**
   * A call through `app.request` as if it came over a socket whose peer is `address`: the
   * `incoming` request @hono/node-server's getConnInfo reads, marked as read so the body is taken
   * from the `Request` (see `http/read-body.ts`).
   */
  async function callFrom(address: string, method: string, path: string, init: { body?: string; headers?: Record<string, string> } = {}) {
    const socket = { remoteAddress: address, remotePort: 40_000, remoteFamily: address.includes(':') ? 'IPv6' : 'IPv4' };
    const response = await harness.app.request(`${harness.issuer}${path}`, { method, headers: init.headers ?? {}, ...(init.body === undefined ? {} : { body: init.body }) }, { incoming: { socket, readableDidRead: true } });
    const text = await response.text();
    return { status: response.status, body: text ? JSON.parse(text) : null, headers: response.headers };
  }
  /** What a device session's limits are keyed by: its tenant, user and device. */
  const sessionOf = async (user: EnrolledUser) => `default:${user.sub}:${(await harness.call('GET', '/api/device/me', { headers: { cookie: user.cookie } })).body.device.device_id}`;
  const redeem = (client: Client, token = 'not-a-token') => harness.call('POST', '/redeem', { body: { token, authorization_details: pay('txn_r') }, headers: { authorization: basic(client) } });

  describe('per client', () => {
    it('refuses /bc-authorize over the client’s limit with 429 too_many_requests, storing and auditing nothing; time and other clients go on', async () => {
      await start();
      const watch = watchWrites(harness);
      for (const id of ['txn_1', 'txn_2', 'txn_3']) expect((await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay(id) })).status).toBe(200);
      await harness.drain();
      const proposed = audit.length;
      const { result: refused, writes } = await watch.during(() => bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_4') }));
      expectTooMany(refused, 'too_many_requests', 20);
      // Only the counter is touched: no request, no idempotency key, no window, no audit event.
      expect(writes).toStrictEqual([['rateLimit', keys.rate('bcAuthorize', `default:${agent.client_id}`)]]);
      expect(audit).toHaveLength(proposed);
      expect((await device(harness, alice, 'GET', '/requests')).body.requests).toHaveLength(3);
      // Another client has an allowance of its own.
      expect((await bcAuthorize(harness, other, { login_hint: 'alice', details: pay('txn_other') })).status).toBe(200);
      clock.advance(19);
      expectTooMany(await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_4') }), 'too_many_requests', 1);
      clock.advance(1);
      expect((await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_4') })).status).toBe(200);
      expectTooMany(await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_5') }), 'too_many_requests', 20);
    });

    it('answers a /token flood over many auth_req_ids with 429 slow_down, before any poll is recorded', async () => {
      await start({ RATE_LIMIT_BC_AUTHORIZE: '10/60' });
      const ids: string[] = [];
      for (const id of ['txn_1', 'txn_2', 'txn_3', 'txn_4']) ids.push((await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay(id) })).body.auth_req_id);
      for (const id of ids.slice(0, 3)) expect((await pollToken(harness, agent, id)).body.error).toBe('authorization_pending');
      const watch = watchWrites(harness);
      const before = await harness.store.hashGet(keys.request('default', ids[3]!));
      const { result: refused, writes } = await watch.during(() => pollToken(harness, agent, ids[3]!));
      expectTooMany(refused, 'slow_down', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('token', `default:${agent.client_id}`)]]);
      expect(await harness.store.hashGet(keys.request('default', ids[3]!))).toStrictEqual(before);
      // Another client's polls are its own (its unknown id answers as usual).
      expect((await pollToken(harness, other, ids[3]!)).body.error).toBe('invalid_grant');
      clock.advance(20);
      expect((await pollToken(harness, agent, ids[3]!)).body.error).toBe('authorization_pending');
      expect((await pollToken(harness, agent, ids[0]!)).status).toBe(429);
    });

    it('refuses /redeem over the client’s limit with 429 too_many_requests, without the refusal audit every other refused redeem gets', async () => {
      await start();
      for (let i = 0; i < 3; i++) expect((await redeem(agent)).body.error).toBe('invalid_token');
      expect(audit.filter((event) => event.type === 'refused').map((event) => event.reason)).toStrictEqual(['invalid_token', 'invalid_token', 'invalid_token']);
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => redeem(agent));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('redeem', `default:${agent.client_id}`)]]);
      expect(audit.filter((event) => event.type === 'refused')).toHaveLength(3);
      expect((await redeem(other)).body.error).toBe('invalid_token');
      clock.advance(20);
      expect((await redeem(agent)).body.error).toBe('invalid_token');
      expect((await redeem(agent)).status).toBe(429);
    });

    it('counts the client’s views of a request (GET and POST /requests/{id}) with its /token polls, answering 429 slow_down over them and writing only the counter', async () => {
      await start();
      const id = (await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_1') })).body.auth_req_id;
      const view = (client: Client, method: 'GET' | 'POST') => harness.call(method, `/requests/${id}`, { headers: { authorization: basic(client), ...(method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, ...(method === 'POST' ? { body: '' } : {}) });
      expect((await pollToken(harness, agent, id)).body.error).toBe('authorization_pending');
      expect((await view(agent, 'GET')).body.state).toBe('pending');
      expect((await view(agent, 'POST')).body.state).toBe('pending');
      const watch = watchWrites(harness);
      // The request's push has landed: what `before` holds is what the refused views must leave.
      await harness.drain();
      const before = await harness.store.hashGet(keys.request('default', id));
      for (const method of ['GET', 'POST'] as const) {
        const { result: refused, writes } = await watch.during(() => view(agent, method));
        expectTooMany(refused, 'slow_down', 20);
        expect(writes).toStrictEqual([['rateLimit', keys.rate('token', `default:${agent.client_id}`)]]);
      }
      expect(await harness.store.hashGet(keys.request('default', id))).toStrictEqual(before);
      // Polling is polling: /token is out of allowance too, and another client has its own.
      expectTooMany(await pollToken(harness, agent, id), 'slow_down', 20);
      expect((await view(other, 'GET')).body.error).toBe('not_found');
      clock.advance(20);
      expect((await view(agent, 'GET')).body.state).toBe('pending');
      expectTooMany(await view(agent, 'POST'), 'slow_down', 20);
    });

    it('refuses outcome reports over the client’s own limit with 429 too_many_requests, without the audit a conflicting report gets', async () => {
      await start();
      const details = pay('txn_1');
      const id = (await bcAuthorize(harness, agent, { login_hint: 'alice', details })).body.auth_req_id;
      expect((await harness.decide(alice, id, 'approve')).status).toBe(200);
      const token = (await pollToken(harness, agent, id)).body.access_token;
      const redeemed = await harness.call('POST', '/redeem', { body: { token, authorization_details: details }, headers: { authorization: basic(agent) } });
      expect(redeemed.status).toBe(200);
      const report = (client: Client, status: 'succeeded' | 'failed') => harness.call('POST', `/redemptions/${redeemed.body.redemption_id}/outcome`, { body: { status }, headers: { authorization: basic(client) } });
      // The outcome has a limit of its own: the client's /token and /redeem calls above spent none of it.
      expect((await report(agent, 'succeeded')).status).toBe(200);
      expect((await report(agent, 'failed')).body.error).toBe('outcome_conflict');
      expect((await report(agent, 'succeeded')).status).toBe(200);
      await harness.drain();
      const refusals = audit.filter((event) => event.type === 'refused').length;
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => report(agent, 'failed'));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('outcome', `default:${agent.client_id}`)]]);
      expect(audit.filter((event) => event.type === 'refused')).toHaveLength(refusals);
      expect((await report(other, 'succeeded')).body.error).toBe('not_found');
      clock.advance(20);
      expect((await report(agent, 'succeeded')).status).toBe(200);
      expect((await report(agent, 'succeeded')).status).toBe(429);
    });
  });

  it('counts on every instance of the deployment together: one client’s calls, one session’s open streams', async () => {
    await start();
    const second = await harness.instance();
    try {
      const on = (instance: Harness, id: string) => bcAuthorize(instance, agent, { login_hint: 'alice', details: pay(id) });
      expect([(await on(harness, 'txn_1')).status, (await on(second, 'txn_2')).status, (await on(harness, 'txn_3')).status]).toStrictEqual([200, 200, 200]);
      expectTooMany(await on(second, 'txn_4'), 'too_many_requests', 20);
      const streams = [await openEventStream(harness, alice.cookie), await openEventStream(second, alice.cookie)];
      expect((await second.app.request(`${second.issuer}/api/device/events`, { headers: { cookie: alice.cookie } })).status).toBe(429);
      expect((await harness.app.request(`${harness.issuer}/api/device/events`, { headers: { cookie: alice.cookie } })).status).toBe(429);
      await Promise.all(streams.map((stream) => stream.close()));
    } finally {
      await second.close();
    }
  });

  describe('per source address', () => {
    const form = 'grant_type=urn:openid:params:grant-type:ciba&auth_req_id=unknown';
    const tokenCall = (address: string, authorization: string, extra: Record<string, string> = {}) => callFrom(address, 'POST', '/token', { body: form, headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', ...extra } });

    it('limits failed client authentications from one address, not another address, and never a successful one', async () => {
      await start({ RATE_LIMIT_TOKEN: '100/1' });
      // Successes are not counted: many of them, then the three failures the limit allows.
      for (let i = 0; i < 6; i++) expect((await tokenCall('203.0.113.5', basic(agent))).body.error).toBe('invalid_grant');
      for (const authorization of [basic(agent, 'wrong'), basic({ client_id: 'cli_unknown', client_secret: 'x' }), 'Basic !!!']) {
        const answer = await tokenCall('203.0.113.5', authorization);
        expect([answer.status, answer.body.error]).toStrictEqual([401, 'invalid_client']);
      }
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => tokenCall('203.0.113.5', basic(agent, 'wrong')));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('clientAuthFailures', '203.0.113.5')]]);
      // Every endpoint that authenticates a client counts against the same allowance.
      expectTooMany(await callFrom('203.0.113.5', 'GET', '/requests/unknown', { headers: { authorization: basic(agent, 'wrong') } }), 'too_many_requests', 20);
      // An X-Forwarded-For header from a peer that is not a trusted proxy changes nothing.
      expectTooMany(await tokenCall('203.0.113.5', basic(agent, 'wrong'), { 'x-forwarded-for': '198.51.100.1' }), 'too_many_requests', 20);
      // The right credentials from that address still work; another address is not limited.
      expect((await tokenCall('203.0.113.5', basic(agent))).body.error).toBe('invalid_grant');
      expect((await tokenCall('203.0.113.9', basic(agent, 'wrong'))).status).toBe(401);
      clock.advance(20);
      expect((await tokenCall('203.0.113.5', basic(agent, 'wrong'))).status).toBe(401);
      expect((await tokenCall('203.0.113.5', basic(agent, 'wrong'))).status).toBe(429);
    });

    it('limits wrong admin tokens per address and then refuses that address even the right token, while another address signs in', async () => {
      await start();
      const admin = (address: string, authorization?: string) => callFrom(address, 'GET', '/api/admin/requests?state=pending', { headers: authorization ? { authorization } : {} });
      // Calls without any token guess nothing: not counted.
      for (let i = 0; i < 5; i++) expect((await admin('198.51.100.7')).status).toBe(401);
      expect((await admin('198.51.100.7', `Bearer ${harness.adminToken}`)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await admin('198.51.100.7', 'Bearer wrong-admin-token')).body.error).toBe('invalid_token');
      expectTooMany(await admin('198.51.100.7', 'Bearer wrong-admin-token'), 'too_many_requests', 20);
      const watch = watchWrites(harness);
      const { result: locked, writes } = await watch.during(() => admin('198.51.100.7', `Bearer ${harness.adminToken}`));
      expectTooMany(locked, 'too_many_requests', 20);
      // Refused on a peek at the address's counter: the right token neither counts nor lengthens the lock.
      expect(writes).toStrictEqual([]);
      expect(await harness.store.get(keys.rate('adminAuthFailures', '198.51.100.7'))).not.toBeNull();
      // The console's test requests sit behind the same check.
      expect((await callFrom('198.51.100.7', 'POST', '/api/admin/test-requests', { body: '{}', headers: { authorization: `Bearer ${harness.adminToken}`, 'content-type': 'application/json' } })).status).toBe(429);
      expect((await admin('198.51.100.8', `Bearer ${harness.adminToken}`)).status).toBe(200);
      clock.advance(20);
      expect((await admin('198.51.100.7', `Bearer ${harness.adminToken}`)).status).toBe(200);
    });

    it('behind a trusted proxy that appends ports to X-Forwarded-For, gives each client its own allowance of wrong admin tokens', async () => {
      await start({ TRUSTED_PROXIES: '10.0.0.0/8' });
      // As Azure Application Gateway writes it: the client's address and port.
      const admin = (forwardedFor: string, token: string) => callFrom('10.0.0.4', 'GET', '/api/admin/requests?state=pending', { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': forwardedFor } });
      for (let i = 0; i < 3; i++) expect((await admin(`192.0.2.50:${5555 + i}`, 'wrong-admin-token')).body.error).toBe('invalid_token');
      const watch = watchWrites(harness);
      const { result: locked, writes } = await watch.during(() => admin('192.0.2.50:6000', harness.adminToken));
      expectTooMany(locked, 'too_many_requests', 20);
      // Locked at another port than the failures came from: they were counted under the address alone.
      expect(writes).toStrictEqual([]);
      expect(await harness.store.get(keys.rate('adminAuthFailures', '192.0.2.50'))).not.toBeNull();
      // The operator behind the same proxy, at another address (IPv4 or IPv6 with a port), is not locked out.
      expect((await admin('198.51.100.20:443', harness.adminToken)).status).toBe(200);
      expect((await admin('[2001:db8::20]:443', harness.adminToken)).status).toBe(200);
      for (let i = 0; i < 3; i++) expect((await admin('[2001:db8::21]:443', 'wrong-admin-token')).status).toBe(401);
      expect((await admin('[2001:db8::22]:8443', harness.adminToken)).status).toBe(429);
      expect((await admin('198.51.100.20:444', harness.adminToken)).status).toBe(200);
    });

    it('limits wrong enrollment codes per address at /enroll/options and /enroll/verify, writing only the counter; a good code from that address still enrolls', async () => {
      await start();
      const enroll = (address: string, path: 'options' | 'verify', body: Record<string, unknown>) => callFrom(address, 'POST', `/api/device/enroll/${path}`, { body: JSON.stringify(body), headers: { 'content-type': 'application/json', origin: harness.issuer } });
      const wrong = (n: number) => `wrong-enrollment-code-${n}`;
      for (const [n, path] of [
        [1, 'options'],
        [2, 'verify'],
        [3, 'options'],
      ] as const) {
        const answer = await enroll('203.0.113.20', path, { enrollment_code: wrong(n), ...(path === 'verify' ? { response: {} } : {}) });
        expect([answer.status, answer.body.error]).toStrictEqual([400, 'invalid_enrollment_code']);
      }
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => enroll('203.0.113.20', 'verify', { enrollment_code: wrong(4), response: {} }));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('enrollmentFailures', '203.0.113.20')]]);
      expectTooMany(await enroll('203.0.113.20', 'options', { enrollment_code: wrong(5) }), 'too_many_requests', 20);
      // Another address has its own allowance; a good code from the limited one is neither counted nor refused.
      expect((await enroll('203.0.113.21', 'options', { enrollment_code: wrong(6) })).body.error).toBe('invalid_enrollment_code');
      await harness.admin('POST', '/users', { sub: 'carol', display_name: 'carol' });
      const code = (await harness.admin('POST', '/users/carol/enrollments')).body.enrollment_code as string;
      const options = await enroll('203.0.113.20', 'options', { enrollment_code: code });
      expect(options.status).toBe(200);
      const phone = createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost' });
      const enrolled = await enroll('203.0.113.20', 'verify', { enrollment_code: code, response: await phone.register(options.body), device_name: 'Carol’s phone' });
      expect([enrolled.status, enrolled.body.user?.sub]).toStrictEqual([200, 'carol']);
      clock.advance(20);
      expect((await enroll('203.0.113.20', 'options', { enrollment_code: wrong(7) })).body.error).toBe('invalid_enrollment_code');
      expect((await enroll('203.0.113.20', 'options', { enrollment_code: wrong(8) })).status).toBe(429);
    });
  });

  describe('per device session', () => {
    it('limits request views per session, the inbox and one request together, writing nothing for a refused view', async () => {
      await start();
      const bob = await harness.enrollUser('bob');
      const id = (await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_1') })).body.auth_req_id as string;
      expect((await device(harness, alice, 'GET', '/requests')).status).toBe(200);
      expect((await device(harness, alice, 'GET', `/requests/${id}`)).status).toBe(200);
      expect((await device(harness, alice, 'GET', '/requests')).status).toBe(200);
      const viewed = audit.filter((event) => event.type === 'viewed').length;
      const watch = watchWrites(harness);
      const { result: refused, writes } = await watch.during(() => device(harness, alice, 'GET', `/requests/${id}`));
      expectTooMany(refused, 'too_many_requests', 20);
      expect(writes).toStrictEqual([['rateLimit', keys.rate('deviceViews', await sessionOf(alice))]]);
      expect(audit.filter((event) => event.type === 'viewed')).toHaveLength(viewed);
      expectTooMany(await device(harness, alice, 'GET', '/requests'), 'too_many_requests', 20);
      expect((await device(harness, bob, 'GET', '/requests')).status).toBe(200);
      clock.advance(20);
      expect((await device(harness, alice, 'GET', `/requests/${id}`)).status).toBe(200);
      expect((await device(harness, alice, 'GET', '/requests')).status).toBe(429);
    });

    it('limits state-changing calls per session, decisions, reports and add-device calls together: over it nothing is audited or stored', async () => {
      await start();
      const bob = await harness.enrollUser('bob');
      const id = (await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_1') })).body.auth_req_id as string;
      const madeUp = 'madeUpRequest000xxxxxxxxxxxxxx';
      // Refused decisions are audited: each of these costs an event in the trail.
      expect((await device(harness, alice, 'POST', `/requests/${madeUp}/decision`, { decision: 'deny', response: {} })).body.error).toBe('invalid_assertion');
      expect((await device(harness, alice, 'POST', `/requests/${id}/report`, { response: {} })).body.error).toBe('invalid_assertion');
      expect((await device(harness, alice, 'POST', '/enrollments/options')).status).toBe(200);
      await harness.drain();
      const events = audit.length;
      const watch = watchWrites(harness);
      const session = await sessionOf(alice);
      for (const [method, path, body] of [
        ['POST', `/requests/${madeUp}/decision`, { decision: 'deny', response: {} }],
        ['POST', `/requests/${id}/decision`, { decision: 'approve', response: {} }],
        ['POST', `/requests/${id}/report`, { response: {} }],
        ['POST', '/enrollments/options', undefined],
        ['POST', '/enrollments', { response: {} }],
        ['PATCH', `/devices/${session.split(':')[2]}`, { name: 'Renamed' }],
        ['PUT', '/push-subscription', { endpoint: 'https://push.example.net/x', keys: { p256dh: 'B'.repeat(87), auth: 'A'.repeat(22) } }],
      ] as const) {
        const { result: refused, writes } = await watch.during(() => device(harness, alice, method, path, body));
        expectTooMany(refused, 'too_many_requests', 20);
        expect([path, writes]).toStrictEqual([path, [['rateLimit', keys.rate('deviceChanges', session)]]]);
      }
      expect(audit).toHaveLength(events);
      // Views have an allowance of their own, and another device session has its own.
      expect((await device(harness, alice, 'GET', `/requests/${id}`)).status).toBe(200);
      expect((await device(harness, bob, 'POST', `/requests/${madeUp}/decision`, { decision: 'deny', response: {} })).body.error).toBe('invalid_assertion');
      clock.advance(20);
      expect((await device(harness, alice, 'POST', `/requests/${madeUp}/decision`, { decision: 'deny', response: {} })).body.error).toBe('invalid_assertion');
      expect((await device(harness, alice, 'POST', `/requests/${madeUp}/decision`, { decision: 'deny', response: {} })).status).toBe(429);
      // The person still decides once the limit lets a call through.
      clock.advance(20);
      expect((await harness.decide(alice, id, 'approve')).body.request.state).toBe('approved');
    });

    it('holds at most DEVICE_STREAMS_MAX event streams open per session; another session opens its own; closing one frees a slot', async () => {
      await start();
      const bob = await harness.enrollUser('bob');
      const openAs = (user: EnrolledUser) => harness.app.request(`${harness.issuer}/api/device/events`, { headers: { cookie: user.cookie, accept: 'text/event-stream' } });
      const first = await openEventStream(harness, alice.cookie);
      const second = await openEventStream(harness, alice.cookie);
      const refused = await openAs(alice);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).toBe('30');
      expect(await refused.json()).toStrictEqual({ error: 'too_many_requests', error_description: 'At most 2 event streams may be open at once for one device. Retry after 30 s.' });
      const bobs = await openEventStream(harness, bob.cookie);
      // The streams still open carry events.
      await bcAuthorize(harness, agent, { login_hint: 'alice', details: pay('txn_1') });
      expect((await second.next((event) => event.event === 'request')).data).toContain('"state":"pending"');
      const session = await sessionOf(alice);
      const slots = () => harness.store.sortedWindowMembers(keys.streamSlots(session), clock.now(), 0);
      expect(await slots()).toHaveLength(2);
      await first.close();
      await expect.poll(slots).toHaveLength(1);
      const third = await openEventStream(harness, alice.cookie);
      expect((await openAs(alice)).status).toBe(429);
      await Promise.all([second.close(), third.close(), bobs.close()]);
      await expect.poll(slots).toHaveLength(0);
    });

    it('limits how fast one session opens event streams, even with slots free', async () => {
      await start({ RATE_LIMIT_DEVICE_STREAMS: '3/60' });
      for (let i = 0; i < 3; i++) await (await openEventStream(harness, alice.cookie)).close();
      const refused = await harness.app.request(`${harness.issuer}/api/device/events`, { headers: { cookie: alice.cookie, accept: 'text/event-stream' } });
      expect([refused.status, refused.headers.get('retry-after'), (await refused.json()).error]).toStrictEqual([429, '20', 'too_many_requests']);
      clock.advance(20);
      await (await openEventStream(harness, alice.cookie)).close();
    });
  });
});
