import { CountersignError } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { holdLease, leaseTicker } from '../server/src/requests/index.ts';
import { keys } from '../server/src/store/index.ts';
import { connectTestDeployment, openEventStream, testPrefix, type TestDeployment } from './support/cluster.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

/**
 * Several stateless instances on one Redis: two server instances — two `createDeps`
 * over two connections to the same data, with the same configuration and keys — as two processes
 * behind a load balancer would be, on the run's single Redis and on its 3-master Redis Cluster.
 * Any instance serves any step; live updates reach an open PWA from whichever instance made the
 * change; the expiry sweep runs on one instance at a time.
 */

async function settle<T>(promise: Promise<T>): Promise<T | CountersignError> {
  return promise.catch((error: unknown) => {
    if (error instanceof CountersignError) return error;
    throw error;
  });
}

describe.each(['redis', 'cluster'] as const)('two instances on one %s', (storeKind) => {
  let a: Harness;
  let b: Harness;
  let customer: EnrolledUser;
  /** The same client, talking to instance A or to instance B. */
  let viaA: AgentClient;
  let viaB: AgentClient;

  beforeEach(async () => {
    a = await createHarness({ store: storeKind });
    b = await a.instance();
    customer = await a.enrollUser('customer_1');
    const credentials = await b.createClient('Support agent');
    const agentOn = (instance: Harness) => createAgentClient({ issuer: instance.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: instance.fetch });
    [viaA, viaB] = [agentOn(a), agentOn(b)];
  });
  afterEach(async () => {
    await Promise.all([a.close(), b.close()]);
  });

  async function approvedToken() {
    const asked = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    expect((await b.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await viaB.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { auth_req_id: asked.auth_req_id, token: polled.token };
  }

  it('serves every step on either instance: request on A, approval on B, poll on A, redeem on B, outcome on A', async () => {
    const asked = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment(), binding_message: 'Order 1042' });
    expect(await viaB.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
    expect((await b.decide(customer, asked.auth_req_id, 'approve')).body.request.state).toBe('approved');

    const polled = await viaA.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    // A token signed on A verifies on B: both instances loaded the one signing key kept in the store.
    const redeemed = await viaB.redeem(polled.token.access_token, payment());
    expect(redeemed).toMatchObject({ status: 'redeemed', idempotency_key: 'txn_1042' });
    await viaA.reportOutcome(redeemed.redemption_id, { status: 'succeeded', reference: 're_1' });

    expect(await viaB.getRequest(asked.auth_req_id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1' } });
    const again = await settle(viaA.redeem(polled.token.access_token, payment()));
    expect(again).toBeInstanceOf(CountersignError);
    expect((again as CountersignError).body?.redemption).toMatchObject({ redemption_id: redeemed.redemption_id });

    await Promise.all([a.deps.background.drain(), b.deps.background.drain()]);
    const audit = await b.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    const types = audit.body.events.map((event: { type: string }) => event.type);
    for (const type of ['proposed', 'viewed', 'approved', 'token_issued', 'redeemed', 'outcome']) expect(types).toContain(type);
    expect(types.filter((type: string) => type === 'redeemed')).toHaveLength(1);
  });

  it('gives exactly one of 100 concurrent redeems of one token, spread over both instances, the redemption', async () => {
    const { token, auth_req_id } = await approvedToken();
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => settle((i % 2 === 0 ? viaA : viaB).redeem(token.access_token, payment()))));
    const winners = results.filter((result) => !(result instanceof CountersignError));
    const losers = results.filter((result): result is CountersignError => result instanceof CountersignError);
    expect(winners).toHaveLength(1);
    expect(losers.map((error) => error.code)).toEqual(Array(99).fill('already_redeemed'));
    const winnerId = (winners[0] as { redemption_id: string }).redemption_id;
    for (const error of losers) expect(error.body?.redemption).toMatchObject({ redemption_id: winnerId });
    expect((await b.admin('GET', `/requests/${auth_req_id}`)).body.request).toMatchObject({ state: 'redeemed' });
  });

  it('carries a change made on instance B to a PWA stream open on instance A', async () => {
    const stream = await openEventStream(a, customer.cookie);
    try {
      const asked = await viaB.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
      const proposed = await stream.next((event) => event.event === 'request' && JSON.parse(event.data).auth_req_id === asked.auth_req_id);
      expect(JSON.parse(proposed.data)).toEqual({ auth_req_id: asked.auth_req_id, state: 'pending' });

      expect((await b.decide(customer, asked.auth_req_id, 'deny')).status).toBe(200);
      const denied = await stream.next((event) => event.event === 'request' && JSON.parse(event.data).state !== 'pending');
      expect(JSON.parse(denied.data)).toEqual({ auth_req_id: asked.auth_req_id, state: 'denied' });
    } finally {
      await stream.close();
    }
  });

  it('delivers each change once to a stream on the instance that made it', async () => {
    const stream = await openEventStream(a, customer.cookie);
    try {
      const asked = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
      await stream.next((event) => event.event === 'request' && JSON.parse(event.data).auth_req_id === asked.auth_req_id);
      // A's own message comes back over Redis too; the bus skips it, so nothing more arrives.
      await expect(stream.next((event) => event.event === 'request', 300)).rejects.toThrow('no matching server-sent event');
    } finally {
      await stream.close();
    }
  });

  it('keeps users apart: a stream sees only its own user’s changes, from any instance', async () => {
    const other = await b.enrollUser('customer_2');
    const stream = await openEventStream(a, customer.cookie);
    try {
      await viaB.requestApproval({ login_hint: other.sub, authorization_details: payment({ transaction_id: 'txn_other' }) });
      const mine = await viaB.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
      const first = await stream.next((event) => event.event === 'request');
      expect(JSON.parse(first.data).auth_req_id).toBe(mine.auth_req_id);
    } finally {
      await stream.close();
    }
  });
});

describe('the expiry sweep lease across instances', () => {
  let deployments: TestDeployment[];

  beforeEach(async () => {
    const prefix = testPrefix();
    deployments = await Promise.all([1, 2, 3].map(() => connectTestDeployment('redis', { prefix })));
  });
  afterEach(async () => {
    for (const deployment of deployments) {
      await deployment.events.close();
      await deployment.store.close();
    }
  });

  /** A manual ticker per instance, counting the ticks that got through the lease. */
  function instances() {
    return deployments.map((deployment, i) => {
      let fire: () => void = () => {};
      const ran: number[] = [];
      const ticker = leaseTicker({
        store: deployment.store,
        holder: `inst_${i}`,
        log: { info() {}, warn() {}, error() {} },
        ticker: (tick) => {
          fire = tick;
          return () => {};
        },
      });
      let tickNumber = 0;
      ticker(() => ran.push(tickNumber), 100);
      return {
        ran,
        tick: () => {
          tickNumber += 1;
          fire();
        },
      };
    });
  }

  it('lets one of three instances sweep per tick, and the same one while it keeps ticking', async () => {
    const all = instances();
    for (let round = 0; round < 5; round++) {
      for (const instance of all) instance.tick();
      await sleep(20);
    }
    const sweeping = all.filter((instance) => instance.ran.length > 0);
    expect(sweeping).toHaveLength(1);
    expect(sweeping[0]!.ran).toEqual([1, 2, 3, 4, 5]);
  });

  it('passes the lease on once its holder stops ticking (crash), within the lease time', async () => {
    const [first, second] = instances();
    first!.tick();
    await sleep(20);
    second!.tick();
    await sleep(20);
    expect([first!.ran.length, second!.ran.length]).toEqual([1, 0]);
    // The lease lasts 3 ticks (300 ms); the holder is gone.
    await sleep(350);
    second!.tick();
    await sleep(20);
    expect(second!.ran).toHaveLength(1);
    first!.tick();
    await sleep(20);
    expect(first!.ran).toHaveLength(1);
  });

  it('takes a free lease in one atomic step: of 20 racing instances exactly one holds it', async () => {
    const key = keys.lease(`race-${testPrefix()}`);
    const held = await Promise.all(Array.from({ length: 20 }, (_, i) => holdLease(deployments[i % deployments.length]!.store, key, `inst_${i}`, 5)));
    expect(held.filter(Boolean)).toHaveLength(1);
  });
});
