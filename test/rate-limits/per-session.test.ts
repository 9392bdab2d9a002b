import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { bcAuthorize, device, pay } from '../guarantees/policy-support.ts';
import { openEventStream } from '../support/cluster.ts';
import type { EnrolledUser } from '../support/harness.ts';
import { expectTooMany, rateLimitSuite, watchWrites } from './support.ts';

/** Limits per device session: request views, state-changing calls, open event streams and how fast they open. */
describe.each(['memory', 'redis'] as const)('rate limits (%s store)', (storeKind) => {
  const { start, sessionOf } = rateLimitSuite(storeKind);

  describe('per device session', () => {
    it('limits request views per session, the inbox and one request together, writing nothing for a refused view', async () => {
      const { harness, clock, audit, alice, agent } = await start();
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
      const { harness, clock, audit, alice, agent } = await start();
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
      const { harness, clock, alice, agent } = await start();
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
      const { harness, clock, alice } = await start({ RATE_LIMIT_DEVICE_STREAMS: '3/60' });
      for (let i = 0; i < 3; i++) await (await openEventStream(harness, alice.cookie)).close();
      const refused = await harness.app.request(`${harness.issuer}/api/device/events`, { headers: { cookie: alice.cookie, accept: 'text/event-stream' } });
      expect([refused.status, refused.headers.get('retry-after'), (await refused.json()).error]).toStrictEqual([429, '20', 'too_many_requests']);
      clock.advance(20);
      await (await openEventStream(harness, alice.cookie)).close();
    });
  });
});
