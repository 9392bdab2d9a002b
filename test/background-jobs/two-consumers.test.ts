import { createECDH, randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import type { PushSender } from '../../server/src/push/index.ts';
import { keys } from '../../server/src/store/index.ts';
import { payment } from '../support/payment.ts';
import { testPolicy } from '../guarantees/policy-support.ts';
import { jobsSuite, NOTIFICATION_TOKEN, receiver, senders } from './support.ts';

/** Both instances consume at once, or one only enqueues: each job runs once, on whichever instance runs jobs. */
describe.each(['redis', 'cluster'] as const)('background jobs across two instances on one %s', (storeKind) => {
  const { deployment, agentFor, ask, auditOf, pending } = jobsSuite(storeKind);

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
