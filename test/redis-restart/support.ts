import { CountersignError } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { Redis } from 'ioredis';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, expect } from 'vitest';
import { startRedisServer, stopRedisServer, type RedisServerProcess } from '../support/cluster.ts';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import type { Credentials } from '../support/raw-request.ts';

/**
 * Redis in trouble, on a redis-server of this file's own: restarted in the middle of a flow (with
 * append-only persistence, then without), stopped, and paused. Two server instances share it
 * throughout. Whatever happens, an answer is either right or 503 `temporarily_unavailable` with
 * `Retry-After` — never a 500, never a wrong answer, never a second redemption.
 *
 * What test/redis-restart/ shares: that Redis and the two instances, started per test and closed
 * after it, restarting Redis, waiting until both instances are back, an approved request.
 */

/** A value, or the refusal it was rejected with; any other error fails the test. */
export async function settle<T>(promise: Promise<T>): Promise<T | CountersignError> {
  return promise.catch((error: unknown) => {
    if (error instanceof CountersignError) return error;
    throw error;
  });
}

/** The refusal `promise` is rejected with; a value fails the test. */
export async function errorOf(promise: Promise<unknown>): Promise<CountersignError> {
  const result = await settle(promise);
  if (result instanceof CountersignError) return result;
  throw new Error(`expected a refusal, got ${JSON.stringify(result)}`);
}

// What one test runs on, as live bindings that `start` sets: the two instances, a customer, a
// client and an agent on each instance; `redis.server` is the Redis running now.
/** Instance A. */
export let a: Harness;
/** Instance B, of the same deployment. */
export let b: Harness;
/** A person enrolled on A. */
export let customer: EnrolledUser;
/** A client registered on B. */
export let credentials: Credentials;
/** The client's agent, calling A. */
export let viaA: AgentClient;
/** The client's agent, calling B. */
export let viaB: AgentClient;
/** The redis-server running now: a test that starts Redis again sets it, so that it is stopped after the test. */
export const redis = {} as { server: RedisServerProcess };

/**
 * The set-up of the `Redis restarts and outages, two instances` suite: `start` runs Redis and the
 * two instances for one test (closed after it, Redis brought back first if the test left it down);
 * `redis.server` is the Redis running now, which a test that starts Redis again must set.
 */
export function outageSuite() {
  let server: RedisServerProcess;
  let appendOnly: boolean;

  async function start(options: { appendOnly: boolean; commandTimeoutMs?: number }): Promise<void> {
    appendOnly = options.appendOnly;
    server = await startRedisServer({ appendOnly });
    a = await createHarness({ redisUrl: `redis://127.0.0.1:${server.port}`, redisCommandTimeoutMs: options.commandTimeoutMs ?? 300 });
    b = await a.instance();
    customer = await a.enrollUser('customer_1');
    credentials = await b.createClient('Support agent');
    const agentOn = (instance: Harness) => createAgentClient({ issuer: instance.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: instance.fetch });
    [viaA, viaB] = [agentOn(a), agentOn(b)];
    redis.server = server;
  }

  /** SIGTERM (with AOF, Redis writes it out first), then a new redis-server on the same port and directory. */
  async function restart(): Promise<void> {
    await stopRedisServer(server);
    server = redis.server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly });
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
    server = redis.server;
    // A test that failed during an outage: bring Redis back, so the instances close cleanly.
    if (server.child.exitCode !== null || server.child.signalCode !== null) server = await startRedisServer({ port: server.port, dir: server.dir, appendOnly });
    await Promise.all([a.close(), b.close()]);
    await stopRedisServer(server);
    await rm(server.dir, { recursive: true, force: true });
  });

  /** A request of the customer's, approved on B and its token polled on A. */
  async function approved(transactionId: string) {
    const asked = await viaA.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: transactionId }) });
    expect((await b.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await viaA.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { auth_req_id: asked.auth_req_id, token: polled.token.access_token, details: payment({ transaction_id: transactionId }) };
  }
  return { start, restart, untilReady, approved };
}
