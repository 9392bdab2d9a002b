import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { JOBS_GROUP } from '../server/src/jobs/index.ts';
import type { NotificationFetch } from '../server/src/notifications/index.ts';
import type { PushSender } from '../server/src/push/index.ts';
import { keys } from '../server/src/store/index.ts';
import { createHarness, freePort, type EnrolledUser, type Harness, type HarnessOptions } from './support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from './support/notification-receiver.ts';
import { payment } from './support/payment.ts';
import { testPolicy } from './guarantees/policy-support.ts';

/**
 * Background work done once across instances, at least once in total, and safe to repeat
 * (docs/reliability.md "Job consumers"): client notifications (CIBA ping and push) and pushes to
 * the person's devices are jobs of a Redis Streams consumer group that every instance reads. Two
 * server instances share one Redis, or the 3-master cluster; an instance "dies" by dropping its
 * connections in the middle of a job.
 *
 * Retries are due on the injected clock, so the backoff costs no time; only the take-over of a dead
 * instance's job waits for real, because Redis measures how long a job has been held by its own
 * clock: `MIN_IDLE_MS` is small for that.
 */

const NOTIFICATION_TOKEN = 'cnt_background_jobs_0123456789abcdef';
const MIN_IDLE_MS = 150;

/** A promise and the function that resolves it. */
function signal() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Never settles: the instance stops here, as a killed process would. */
const forever = () => new Promise<never>(() => {});

describe.each(['redis', 'cluster'] as const)('background jobs across two instances on one %s', (storeKind) => {
  let receiver: NotificationReceiver;
  let open: Harness[];
  /** Which instance sent each notification the receiver got, in order. */
  let senders: string[];

  /** A notification `fetch` that names the instance it belongs to, then sends for real. */
  const sendingAs =
    (name: string): NotificationFetch =>
    (url, init) => {
      senders.push(name);
      return globalThis.fetch(url, init);
    };

  /** Instance A, then B of the same deployment. */
  async function deployment(a: HarnessOptions = {}, b: HarnessOptions = {}): Promise<[Harness, Harness]> {
    const first = await createHarness({ store: storeKind, jobs: { minIdleMs: MIN_IDLE_MS }, notifications: { fetch: sendingAs('A') }, ...a });
    const second = await first.instance({ notifications: { fetch: sendingAs('B') }, ...b });
    open.push(first, second);
    return [first, second];
  }

  /** Kills `instance` (see `Harness.crash`): its jobs in flight are never finished nor acknowledged. */
  async function crash(instance: Harness): Promise<void> {
    open = open.filter((other) => other !== instance);
    await instance.crash();
  }

  async function agentFor(on: Harness, mode: 'ping' | 'push', endpoint = receiver.url): Promise<AgentClient> {
    const { status, body } = await on.admin('POST', '/clients', { name: `${mode} agent`, token_delivery_mode: mode, backchannel_client_notification_endpoint: endpoint });
    expect(status).toBe(201);
    return createAgentClient({ issuer: on.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: on.fetch });
  }

  async function ask(agent: AgentClient, customer: EnrolledUser, transactionId = 'txn_1042') {
    return agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: transactionId }), client_notification_token: NOTIFICATION_TOKEN });
  }

  async function auditOf(on: Harness, authReqId: string): Promise<{ type: string; reason?: string; detail?: Record<string, unknown> }[]> {
    return (await on.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events;
  }

  const pending = (on: Harness) => on.store.streamPendingCount(keys.jobs(), JOBS_GROUP);

  beforeEach(async () => {
    receiver = await startNotificationReceiver();
    open = [];
    senders = [];
  });
  afterEach(async () => {
    await Promise.all(open.map((instance) => instance.close()));
    await receiver.close();
  });

  it('delivers a ping whose instance died holding it from the other instance, once it has been idle for min-idle', async () => {
    const reached = signal();
    const [a, b] = await deployment({ notifications: { fetch: () => (reached.resolve(), forever()) } });
    const customer = await a.enrollUser('customer_1');
    const agent = await agentFor(a, 'ping');
    const asked = await ask(agent, customer);
    await a.deps.background.drain();
    expect((await a.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    // A's consumer took the job and was about to POST when it died.
    await reached.promise;
    await crash(a);

    expect(await b.deps.jobs.drain()).toBe(0);
    expect(receiver.received).toEqual([]);
    await sleep(MIN_IDLE_MS + 50);
    expect(await b.deps.jobs.drain()).toBe(1);

    expect(receiver.received.map((request) => [request.json, request.headers.authorization])).toEqual([[{ auth_req_id: asked.auth_req_id }, `Bearer ${NOTIFICATION_TOKEN}`]]);
    expect(senders).toEqual(['B']);
    expect((await auditOf(b, asked.auth_req_id)).filter((event) => event.type === 'notified')).toMatchObject([{ detail: { mode: 'ping', attempts: 1, status: 204 } }]);
    expect(await pending(b)).toBe(0);
  });

  it('sends a push token again, the same one, when its instance died between delivery and acknowledgement; never a second token', async () => {
    const delivered = signal();
    const [a, b] = await deployment({
      notifications: {
        fetch: async (url, init) => {
          const response = await globalThis.fetch(url, init);
          await response.body?.cancel();
          delivered.resolve();
          return forever();
        },
      },
    });
    const customer = await a.enrollUser('customer_1');
    // The agent talks to B, which outlives A; the approval lands on A, whose consumer then dies.
    const agent = await agentFor(b, 'push');
    const asked = await ask(agent, customer);
    await b.deps.background.drain();
    expect((await a.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    await delivered.promise;
    await crash(a);
    await sleep(MIN_IDLE_MS + 50);
    expect(await b.deps.jobs.drain()).toBe(1);

    // A duplicate of the same token response: the receiver sees it twice, identical.
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.text).toBe(receiver.received[0]!.text);
    const body = receiver.received[0]!.json as { access_token: string };
    const events = await auditOf(b, asked.auth_req_id);
    expect(events.filter((event) => event.type === 'token_issued')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'notified')).toHaveLength(1);
    // Delivered: the body (and the token in it) is no longer kept beside the request.
    expect((await b.store.hashGet(keys.request('default', asked.auth_req_id)))?.push_body).toBe('');
    expect((await agent.redeem(body.access_token, payment())).status).toBe('redeemed');
    expect(await pending(b)).toBe(0);
  });

  it('sends nothing again for a ping its instance delivered and marked, then died before acknowledging', async () => {
    const [a, b] = await deployment();
    // A's connection goes at the moment it acknowledges a job: the new request's push, then the ping.
    const acking = signal();
    let acks = 0;
    a.store.streamAck = () => {
      if (++acks === 2) acking.resolve();
      return forever();
    };
    const customer = await a.enrollUser('customer_1');
    const agent = await agentFor(a, 'ping');
    const asked = await ask(agent, customer);
    expect((await a.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    await acking.promise;
    await crash(a);
    await sleep(MIN_IDLE_MS + 50);
    // B takes over both of A's jobs (the new request's push, the ping) and finds them done.
    expect(await b.deps.jobs.drain()).toBe(2);
    expect(receiver.received).toHaveLength(1);
    expect(senders).toEqual(['A']);
    expect((await auditOf(b, asked.auth_req_id)).filter((event) => event.type === 'notified' || event.type === 'pushed')).toHaveLength(2);
    expect(await pending(b)).toBe(0);
  });

  it('retries a failing endpoint on the backoff schedule, each attempt due on the clock and taken by whichever instance moves it', async () => {
    receiver.script(503, 500, 502);
    const [a, b] = await deployment();
    const customer = await a.enrollUser('customer_1');
    const agent = await agentFor(a, 'ping');
    const asked = await ask(agent, customer);
    expect((await a.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    await a.deps.background.drain();
    expect(senders).toEqual(['A']);
    const firstDue = await b.deps.jobs.nextDueAt();
    expect(firstDue! - b.clock.now()).toBeGreaterThan(500);
    expect(firstDue! - b.clock.now()).toBeLessThanOrEqual(1000);

    // Not due yet: nothing moves, whoever looks.
    expect(await b.deps.jobs.tick()).toBe(0);
    expect(await b.deps.jobs.drain()).toBe(0);
    let next = b;
    for (const wait of [1, 2, 4]) {
      a.clock.advance(wait);
      expect(await next.deps.jobs.tick()).toBe(1);
      await next.deps.background.drain();
      next = next === b ? a : b;
    }
    expect(senders).toEqual(['A', 'B', 'A', 'B']);
    expect([...a.sleeps, ...b.sleeps].sort((x, y) => x - y)).toEqual([1000, 2000, 4000]);
    expect(receiver.received.map((request) => request.text)).toEqual(Array(4).fill(JSON.stringify({ auth_req_id: asked.auth_req_id })));
    const events = await auditOf(a, asked.auth_req_id);
    expect(events.filter((event) => event.type === 'notified')).toMatchObject([{ detail: { mode: 'ping', attempts: 4, status: 204 } }]);
    expect(events.filter((event) => event.type === 'notify_failed')).toEqual([]);
    expect(await b.deps.jobs.nextDueAt()).toBeNull();
    expect(await pending(a)).toBe(0);
    expect((await agent.pollToken(asked.auth_req_id)).status).toBe('approved');
  });

  it('gives up after the 5th attempt across instances, audits notify_failed once and leaves nothing queued', async () => {
    const [a, b] = await deployment();
    const customer = await a.enrollUser('customer_1');
    const agent = await agentFor(a, 'ping', `http://127.0.0.1:${await freePort()}/cb`);
    const asked = await ask(agent, customer);
    expect((await b.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    await b.deps.background.drain();
    for (const [i, wait] of [1, 2, 4, 8].entries()) {
      const next = i % 2 === 0 ? a : b;
      a.clock.advance(wait);
      expect(await next.deps.jobs.tick()).toBe(1);
      await next.deps.background.drain();
    }
    expect(senders).toEqual(['B', 'A', 'B', 'A', 'B']);
    const failed = (await auditOf(a, asked.auth_req_id)).filter((event) => event.type === 'notify_failed');
    expect(failed).toMatchObject([{ reason: 'endpoint_unreachable', detail: { mode: 'ping', attempts: 5 } }]);
    expect(await a.deps.jobs.nextDueAt()).toBeNull();
    expect(await pending(a)).toBe(0);
  });

  it('runs each job once while both instances consume at once: one ping per decision', async () => {
    // Eight requests of one client pending for one user at once: more than the shipped policy's share.
    const [a, b] = await deployment({ jobs: { minIdleMs: 30_000, pollMs: 5 }, env: { POLICY_FILE: testPolicy() } });
    a.deps.jobs.start();
    b.deps.jobs.start();
    const customer = await a.enrollUser('customer_1');
    const agent = await agentFor(a, 'ping');
    const decisions = new Map<string, 'approve' | 'deny'>();
    for (let i = 0; i < 8; i++) {
      const asked = await ask(agent, customer, `txn_${1000 + i}`);
      decisions.set(asked.auth_req_id, i % 3 === 0 ? 'deny' : 'approve');
    }
    let i = 0;
    for (const [authReqId, decision] of decisions) expect((await (i++ % 2 === 0 ? a : b).decide(customer, authReqId, decision)).status).toBe(200);
    for (let waited = 0; receiver.received.length < decisions.size && waited < 5000; waited += 10) await sleep(10);
    // Time for a second delivery of any of them to show up, were there one.
    await sleep(100);
    await Promise.all([a.deps.jobs.stop(), b.deps.jobs.stop()]);

    const pinged = receiver.received.map((request) => (request.json as { auth_req_id: string }).auth_req_id);
    expect([...pinged].sort()).toEqual([...decisions.keys()].sort());
    expect(senders.filter((name) => name === 'A').length).toBeGreaterThan(0);
    expect(senders.filter((name) => name === 'B').length).toBeGreaterThan(0);
    for (const authReqId of decisions.keys()) {
      const types = (await auditOf(a, authReqId)).map((event) => event.type);
      expect(
        types.filter((type) => type === 'notified'),
        authReqId,
      ).toHaveLength(1);
      expect(
        types.filter((type) => type === 'pushed'),
        authReqId,
      ).toHaveLength(1);
    }
    expect(await pending(a)).toBe(0);
  });

  it('pushes new and expired requests to the person through the queue, from an instance that only enqueues to one that runs jobs', async () => {
    const pushes: string[] = [];
    const sender: PushSender = {
      send: async (_subscription, payload) => {
        pushes.push(JSON.parse(payload).kind);
        return { status: 'sent', statusCode: 201 };
      },
    };
    const [a, b] = await deployment({ pushSender: sender, jobs: { consume: false } }, { jobs: { consume: true } });
    const customer = await a.enrollUser('customer_1');
    const ecdh = createECDH('prime256v1');
    ecdh.generateKeys();
    const subscription = { endpoint: 'https://push.example.net/send/phone-1', expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
    expect((await a.call('PUT', '/api/device/push-subscription', { body: subscription, headers: { cookie: customer.cookie, origin: a.issuer } })).status).toBe(204);
    const agent = await agentFor(a, 'push');
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), client_notification_token: NOTIFICATION_TOKEN, requested_expiry: 30 });
    await a.deps.background.drain();
    expect(pushes).toEqual([]);

    a.clock.advance(30);
    expect(await a.deps.sweeper.sweep()).toBe(1);
    await a.deps.background.drain();
    // What waits in the queue is ids, never the notification token nor a push subscription.
    const queued = await a.store.streamRange(keys.jobs());
    expect(queued.map((entry) => entry.fields.kind).sort()).toEqual(['client_notification', 'expiry_push', 'request_push']);
    for (const entry of queued) expect(Object.keys(entry.fields).every((field) => ['kind', 'tenant', 'auth_req_id', 'attempt', 'sub', 'from'].includes(field))).toBe(true);
    expect(JSON.stringify(queued)).not.toContain(NOTIFICATION_TOKEN);

    expect(await b.deps.jobs.drain()).toBe(3);
    // The new request's push ran after the request expired: it is not pushed any more; the notice is.
    expect(pushes).toEqual(['request_expired']);
    expect(receiver.received.map((request) => request.json.error)).toEqual(['expired_token']);
    const types = (await auditOf(b, asked.auth_req_id)).map((event) => event.type);
    expect(types.filter((type) => type === 'pushed' || type === 'notified')).toEqual(expect.arrayContaining(['pushed', 'notified']));
    expect(types.filter((type) => type === 'pushed')).toHaveLength(1);
  });
});
