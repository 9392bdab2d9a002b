import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { payment } from '../support/payment.ts';
import { a, credentials, customer, errorOf, outageSuite, redis, viaA, viaB } from './support.ts';

/** A stalled Redis (CLIENT PAUSE) and a short command timeout: 503 while it stalls, a compare-and-swap that timed out never lands. */
describe('Redis restarts and outages, two instances', () => {
  const { start, approved } = outageSuite();

  describe('a stalled Redis (CLIENT PAUSE) and a 200 ms command timeout', () => {
    let admin: Redis;
    beforeEach(async () => {
      await start({ appendOnly: false, commandTimeoutMs: 200 });
      admin = new Redis(redis.server.port);
    });
    afterEach(() => {
      admin.disconnect();
    });

    it('answers 503 with Retry-After while Redis does not answer, and the right answer after', async () => {
      const asked = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
      await admin.call('CLIENT', 'PAUSE', '500', 'ALL');
      // The client's registered method (client_secret_basic): its record is in this instance's
      // client cache, so the call gets past authentication and stalls on the request itself.
      const basic = Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64');
      const stalled = await a.call('POST', '/token', {
        body: new URLSearchParams({ grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id: asked.auth_req_id }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      });
      expect([stalled.status, stalled.body.error, stalled.headers.get('retry-after')]).toEqual([503, 'temporarily_unavailable', '2']);
      expect(stalled.body.error_description).toMatch(/unknown/);
      await sleep(400);
      expect(await viaB.pollToken(asked.auth_req_id)).toMatchObject({ status: expect.stringMatching(/^(pending|slow_down)$/) });
    });

    it('answers a redeem whose compare-and-swap timed out 503, never success, and the swap does not land after its deadline: the retry redeems once', async () => {
      const ready = await approved('txn_stalled');
      // Stall Redis exactly as the redeem's compare-and-swap goes out, once: the script times out on
      // the client, and when Redis resumes it finds its deadline (Redis's clock) passed and does nothing.
      const compareAndSet = a.store.compareAndSet.bind(a.store);
      let stallNext = true;
      a.store.compareAndSet = async (...args) => {
        if (stallNext && args[0].startsWith('req:')) {
          stallNext = false;
          await admin.call('CLIENT', 'PAUSE', '500', 'ALL');
        }
        return compareAndSet(...args);
      };

      const unknown = await errorOf(viaA.redeem(ready.token, ready.details));
      expect([unknown.code, unknown.status]).toEqual(['temporarily_unavailable', 503]);
      await sleep(500);
      // Had it landed late, the executor (told "unknown") and the record would disagree until it retried.
      expect((await viaB.getRequest(ready.auth_req_id)).state).toBe('approved');
      const redeemed = await viaA.redeem(ready.token, ready.details);
      expect(redeemed).toMatchObject({ status: 'redeemed', redemption_id: expect.stringMatching(/^rdm_/) });
      const again = await errorOf(viaA.redeem(ready.token, ready.details));
      expect([again.code, again.status]).toEqual(['already_redeemed', 409]);
      expect(again.body?.redemption).toMatchObject({ redemption_id: redeemed.redemption_id, outcome: { status: 'unknown' } });
    });
  });
});
