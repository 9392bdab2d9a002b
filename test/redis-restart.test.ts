import { CountersignError } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { Redis } from 'ioredis';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLIENT_CACHE_TTL_MS } from '../server/src/clients/index.ts';
import { keys } from '../server/src/store/index.ts';
import { openEventStream, startRedisServer, stopRedisServer, type RedisServerProcess } from './support/cluster.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

/**
 * Redis in trouble, on a redis-server of this file's own: restarted in the middle of a flow (with
 * append-only persistence, then without), stopped, and paused. Two server instances share it
 * throughout. Whatever happens, an answer is either right or 503 `temporarily_unavailable` with
 * `Retry-After` — never a 500, never a wrong answer, never a second redemption.
 */

async function settle<T>(promise: Promise<T>): Promise<T | CountersignError> {
  return promise.catch((error: unknown) => {
    if (error instanceof CountersignError) return error;
    throw error;
  });
}

async function errorOf(promise: Promise<unknown>): Promise<CountersignError> {
  const result = await settle(promise);
  if (result instanceof CountersignError) return result;
  throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
}

describe('Redis restarts and outages, two instances', () => {
  let server: RedisServerProcess;
  let appendOnly: boolean;
  let a: Harness;
  let b: Harness;
  let customer: EnrolledUser;
  let credentials: { client_id: string; client_secret: string };
  let viaA: AgentClient;
  let viaB: AgentClient;

  async function start(options: { appendOnly: boolean; commandTimeoutMs?: number }): Promise<void> {
    appendOnly = options.appendOnly;
    server = await startRedisServer({ appendOnly });
    a = await createHarness({ redisUrl: `redis://127.0.0.1:${server.port}`, redisCommandTimeoutMs: options.commandTimeoutMs ?? 300 });
    b = await a.instance();
    customer = await a.enrollUser('customer_1');
    credentials = await b.createClient('Support agent');
    const agentOn = (instance: Harness) => createAgentClient({ issuer: instance.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: instance.fetch });
    [viaA, viaB] = [agentOn(a), agentOn(b)];
  }

  /** SIGTERM (with AOF, Redis writes it out first), then a new redis-server on the same port and directory. */
  async function restart(): Promise<void> {
    await stopRedisServer(server);
    server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly });
    await untilReady();
  }

  /** Until both instances reach Redis again and both event-bus subscribers are back on the channel. */
  async function untilReady(): Promise<void> {
    const admin = new Redis(server.port, { lazyConnect: true });
    try {
      for (const deadline = Date.now() + 10_000; ; await sleep(25)) {
        const ready = await Promise.all([a, b].map(async (instance) => (await instance.call('GET', '/readyz')).status === 200));
        const channels = (await admin.call('PUBSUB', 'CHANNELS')) as string[];
        const subscribers = channels.length === 1 ? ((await admin.call('PUBSUB', 'NUMSUB', channels[0]!)) as [string, number])[1] : 0;
        if (ready.every(Boolean) && subscribers === 2) return;
        if (Date.now() > deadline) throw new Error('the instances did not reconnect within 10 s');
      }
    } finally {
      admin.disconnect();
    }
  }

  afterEach(async () => {
    // A test that failed during an outage: bring Redis back, so the instances close cleanly.
    if (server.child.exitCode !== null || server.child.signalCode !== null) server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly });
    await Promise.all([a.close(), b.close()]);
    await stopRedisServer(server);
    await rm(server.dir, { recursive: true, force: true });
  });

  async function approved(transactionId: string) {
    const asked = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: transactionId }) });
    expect((await b.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await viaA.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { auth_req_id: asked.auth_req_id, token: polled.token.access_token, details: payment({ transaction_id: transactionId }) };
  }

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
      await stopRedisServer(server);

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

      server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly: true });
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

  describe('without persistence', () => {
    beforeEach(() => start({ appendOnly: false }));

    it('refuses the requests the restart lost cleanly — invalid_grant, invalid_token, not found — never with a 500', async () => {
      const pending = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: 'txn_lost_1' }) });
      const ready = await approved('txn_lost_2');
      const client = (await a.store.get(keys.client(credentials.client_id)))!;

      await restart();
      // Each instance keeps a client record it read for up to CLIENT_CACHE_TTL_MS (5 s): past that,
      // the registration the restart lost is read again, and found missing.
      a.clock.advance(CLIENT_CACHE_TTL_MS / 1000);

      // Everything is gone, the client's registration too: it can no longer authenticate.
      expect((await errorOf(viaA.pollToken(pending.auth_req_id))).code).toBe('invalid_client');
      expect((await a.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie } })).status).toBe(401);

      // The operator registers the client again (here: puts its record back); its old requests stay gone.
      await a.store.set(keys.client(credentials.client_id), client);
      expect((await errorOf(viaA.pollToken(pending.auth_req_id))).code).toBe('invalid_grant');
      expect((await errorOf(viaB.pollToken(ready.auth_req_id))).code).toBe('invalid_grant');
      const redeem = await errorOf(viaB.redeem(ready.token, ready.details));
      expect([redeem.code, redeem.status]).toEqual(['invalid_token', 401]);
      expect((await errorOf(viaA.getRequest(ready.auth_req_id))).status).toBe(404);
    });
  });

  describe('a stalled Redis (CLIENT PAUSE) and a 200 ms command timeout', () => {
    let admin: Redis;
    beforeEach(async () => {
      await start({ appendOnly: false, commandTimeoutMs: 200 });
      admin = new Redis(server.port);
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
