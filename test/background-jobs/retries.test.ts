import { describe, expect, it } from 'vitest';
import { freePort } from '../support/harness.ts';
import { jobsSuite, receiver, senders } from './support.ts';

/** A failing endpoint: retried on the backoff schedule by whichever instance, then given up and audited once. */
describe.each(['redis', 'cluster'] as const)('background jobs across two instances on one %s', (storeKind) => {
  const { deployment, agentFor, ask, auditOf, pending } = jobsSuite(storeKind);

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
});
