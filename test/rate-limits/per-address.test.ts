import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';
import { basic, expectTooMany, rateLimitSuite, watchWrites } from './support.ts';

/** Limits per source address: failed client authentications, wrong admin tokens, wrong enrollment codes. */
describe.each(['memory', 'redis'] as const)('rate limits (%s store)', (storeKind) => {
  const { start, callFrom } = rateLimitSuite(storeKind);

  describe('per source address', () => {
    const form = 'grant_type=urn:openid:params:grant-type:ciba&auth_req_id=unknown';
    const tokenCall = (address: string, authorization: string, extra: Record<string, string> = {}) => callFrom(address, 'POST', '/token', { body: form, headers: { authorization, 'content-type': 'application/x-www-form-urlencoded', ...extra } });

    it('limits failed client authentications from one address, not another address, and never a successful one', async () => {
      const { harness, clock, agent } = await start({ RATE_LIMIT_TOKEN: '100/1' });
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
      const { harness, clock } = await start();
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
      const { harness } = await start({ TRUSTED_PROXIES: '10.0.0.0/8' });
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
      const { harness, clock } = await start();
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
});
