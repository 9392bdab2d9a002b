import { CountersignError } from '@countersign/shared';
import { beforeEach, describe, expect, it } from 'vitest';
import { openEventStream, startRedisServer, stopRedisServer } from '../support/cluster.ts';
import { payment } from '../support/payment.ts';
import { a, b, customer, errorOf, outageSuite, redis, settle, viaA, viaB } from './support.ts';

/** With append-only persistence: a restart keeps the requests, an outage answers 503 everywhere until Redis is back. */
describe('Redis restarts and outages, two instances', () => {
  const { start, restart, untilReady, approved } = outageSuite();

  describe('with append-only persistence', () => {
    beforeEach(() => start({ appendOnly: true }));

    it('keeps the requests made before a restart: they complete afterwards, and nothing is redeemed twice', async () => {
      const done = await approved('txn_before_1');
      const first = await viaB.redeem(done.token, done.details);
      const waiting = await approved('txn_before_2');
      const pending = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: 'txn_before_3' }) });
      const stream = await openEventStream(a, customer.cookie);

      try {
        await restart();

        // Redeemed before: still redeemed, with its original record.
        const again = await errorOf(viaA.redeem(done.token, done.details));
        expect([again.code, again.body?.redemption]).toMatchObject(['already_redeemed', { redemption_id: first.redemption_id }]);
        // Approved before: redeemable once, on either instance.
        const redeemed = await viaA.redeem(waiting.token, waiting.details);
        expect((await errorOf(viaB.redeem(waiting.token, waiting.details))).body?.redemption).toMatchObject({ redemption_id: redeemed.redemption_id });
        // Pending before: decided now on B, which A's open stream hears over the resubscribed channel.
        expect((await b.decide(customer, pending.auth_req_id, 'approve')).status).toBe(200);
        const event = await stream.next((e) => e.event === 'request' && JSON.parse(e.data).state === 'approved');
        expect(JSON.parse(event.data)).toEqual({ auth_req_id: pending.auth_req_id, state: 'approved' });
        const polled = await viaA.pollToken(pending.auth_req_id);
        if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
        expect((await viaB.redeem(polled.token.access_token, payment({ transaction_id: 'txn_before_3' }))).status).toBe('redeemed');
      } finally {
        await stream.close();
      }

      const audit = await a.admin('GET', `/audit?auth_req_id=${waiting.auth_req_id}`);
      expect(audit.body.events.filter((event: { type: string }) => event.type === 'redeemed')).toHaveLength(1);
    });

    it('answers 503 temporarily_unavailable with Retry-After on every surface while Redis is down, and serves again once it is back', async () => {
      const ready = await approved('txn_outage');
      await stopRedisServer(redis.server);

      const calls = await Promise.all([settle(viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: 'txn_during' }) })), settle(viaB.pollToken(ready.auth_req_id)), settle(viaA.redeem(ready.token, ready.details)), settle(viaB.getRequest(ready.auth_req_id))]);
      for (const call of calls) expect([(call as CountersignError).code, (call as CountersignError).status]).toEqual(['temporarily_unavailable', 503]);
      for (const [instance, method, path, headers] of [
        [a, 'GET', '/api/device/requests', { cookie: customer.cookie }],
        [b, 'GET', `/api/admin/requests/${ready.auth_req_id}`, { authorization: `Bearer ${b.adminToken}` }],
      ] as const) {
        const response = await instance.call(method, path, { headers });
        expect([response.status, response.body.error, response.headers.get('retry-after')], path).toEqual([503, 'temporarily_unavailable', '2']);
        expect(response.headers.get('cache-control'), path).toBe('no-store');
      }
      expect((await a.call('GET', '/readyz')).status).toBe(503);

      redis.server = await startRedisServer({ port: redis.server.port, dir: redis.server.dir, appendOnly: true });
      await untilReady();
      // The redeem sent during the outage timed out, its outcome unknown: the client knows its record
      // (cached), so the compare-and-swap was queued, and may have run once Redis came back. The
      // retry reads the truth, and the approval is redeemed exactly once either way.
      const retried = await settle(viaB.redeem(ready.token, ready.details));
      if (retried instanceof CountersignError) expect([retried.code, retried.status]).toEqual(['already_redeemed', 409]);
      else expect(retried.status).toBe('redeemed');
      expect((await viaB.getRequest(ready.auth_req_id)).state).toBe('redeemed');
      expect(await errorOf(viaB.redeem(ready.token, ready.details))).toMatchObject({ code: 'already_redeemed' });
    });
  });
});
