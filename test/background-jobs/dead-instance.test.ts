import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { keys } from '../../server/src/store/index.ts';
import { payment } from '../support/payment.ts';
import { forever, jobsSuite, receiver, senders, MIN_IDLE_MS, NOTIFICATION_TOKEN, signal } from './support.ts';

/** A job whose instance died holding it: taken over once idle, repeated safely, never doubled. */
describe.each(['redis', 'cluster'] as const)('background jobs across two instances on one %s', (storeKind) => {
  const { deployment, crash, agentFor, ask, auditOf, pending } = jobsSuite(storeKind);

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
});
