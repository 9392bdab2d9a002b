import { CountersignError } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedisStore, observeStoreErrors, runWithStoreDeadline, StoreUnavailableError } from '../server/src/store/index.ts';
import { startRedisServer, stopRedisServer, testPrefix, type RedisServerProcess } from './support/cluster.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { outcome } from './support/store-outcome.ts';

/**
 * Redis errors produced for real, on a Redis server of this file's own (it runs busy scripts,
 * reloads and stops the server, which would disturb the run's shared one): each is retried where
 * that is safe, or answered 503, never a 500; a request's store calls share one deadline. The
 * mapping of every error class is in server/src/store/redis-failures.test.ts.
 */

describe('a private Redis in trouble', () => {
  let server: RedisServerProcess;

  beforeAll(async () => {
    server = await startRedisServer();
  });
  afterAll(async () => {
    if (server.child.signalCode === null) server.child.kill('SIGCONT');
    await stopRedisServer(server);
  });

  it('retries a read refused with BUSY while a slow script runs, and answers it once the script is done', async () => {
    const store = await connectRedisStore(`redis://127.0.0.1:${server.port}`, { prefix: testPrefix() });
    const admin = new Redis(server.port);
    // What countersign_store_errors_total counts: every error met, the retried ones too.
    const met: string[] = [];
    observeStoreErrors(store, (kind) => void met.push(kind));
    try {
      await store.set('k', 'v');
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '50');
      // A script that keeps Redis busy for 300 ms: past 50 ms every other client gets BUSY.
      const busy = admin.eval("local t = redis.call('TIME') local s = t[1] * 1000000 + t[2] repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - s > 300000 return 1", 0);
      await sleep(100);
      expect(await store.get('k')).toBe('v');
      expect(await busy).toBe(1);
      // What it met, if the read came while the script ran (on a busy machine it may come after).
      expect(met.filter((kind) => kind !== 'not_now')).toEqual([]);
    } finally {
      await admin.call('CONFIG', 'SET', 'busy-reply-threshold', '5000');
      admin.disconnect();
      await store.close();
    }
  });

  it('retries a read refused with LOADING while Redis reloads its data (DEBUG RELOAD), or answers 503: never the raw error', async () => {
    const loading = await startRedisServer({ args: ['--enable-debug-command', 'local'] });
    const store = await connectRedisStore(`redis://127.0.0.1:${loading.port}`, { prefix: 'key:', redis: { commandTimeout: 5000 } });
    const admin = new Redis(loading.port);
    const probe = new Redis(loading.port);
    try {
      // Enough keys that the reload lasts a while even when the probe's turns come late on a busy machine.
      await admin.call('DEBUG', 'POPULATE', '1000000');
      const answers: Promise<string | null | 'unavailable'>[] = [];
      const seen = new Set<string>();
      // Redis answers LOADING only to a command it reads while it loads (not while it saves first),
      // so a probe on a busy machine can miss one reload: up to five, until it has seen LOADING.
      for (let reload = 0; reload < 5 && !seen.has('LOADING'); reload++) {
        const reloaded = admin.call('DEBUG', 'RELOAD');
        let done = false;
        void reloaded.finally(() => (done = true));
        while (!done) {
          answers.push(outcome(store.get('1')));
          // The same read without the store: what Redis really answers meanwhile.
          seen.add(await probe.get('key:1').then(String, (error: Error) => error.message.split(' ')[0]!));
          await sleep(5);
        }
        await reloaded;
      }
      expect(seen).toContain('LOADING');
      for (const answer of await Promise.all(answers)) expect(['value:1', 'unavailable']).toContain(answer);
      expect(await store.get('1')).toBe('value:1');
    } finally {
      probe.disconnect();
      admin.disconnect();
      await store.close();
      await stopRedisServer(loading);
    }
  });

  it('rejects a call made after its deadline at once, without sending it', async () => {
    const store = await connectRedisStore(`redis://127.0.0.1:${server.port}`, { prefix: testPrefix() });
    try {
      const answer = await runWithStoreDeadline(50, async () => {
        expect(await store.get('k')).toBeNull();
        await sleep(60);
        const started = performance.now();
        const failed = await store.set('k', 'late').catch((error: unknown) => error);
        return { failed, elapsed: performance.now() - started };
      });
      expect(answer.failed).toBeInstanceOf(StoreUnavailableError);
      expect((answer.failed as StoreUnavailableError).failure).toBe('unavailable');
      expect(answer.elapsed).toBeLessThan(20);
      expect(await store.get('k')).toBeNull();
    } finally {
      await store.close();
    }
  });

  it('answers a request whose Redis is stopped (SIGSTOP) with 503 within its one deadline, though its call queues behind a stuck pipeline', async () => {
    const timeoutMs = 1500;
    const harness: Harness = await createHarness({ redisUrl: `redis://127.0.0.1:${server.port}`, redisCommandTimeoutMs: timeoutMs });
    try {
      const customer = await harness.enrollUser('customer_1');
      const credentials = await harness.createClient('Support agent');
      const basic = Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64');
      const form = (auth_req_id: string) => ({
        body: new URLSearchParams({ grant_type: 'urn:openid:params:grant-type:ciba', auth_req_id }).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${basic}` },
      });
      const agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
      const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
      // Once: the client record is cached now, so the poll below stalls on the request itself.
      expect((await harness.call('POST', '/token', form(asked.auth_req_id))).status).toBe(400);

      server.child.kill('SIGSTOP');
      let elapsed: number;
      let stalled: Awaited<ReturnType<Harness['call']>>;
      try {
        // A pipeline on the wire that Redis will not answer: what the request's calls queue behind.
        const stuck = harness.store.get('stuck').catch((error: unknown) => error);
        await sleep(50);
        const started = performance.now();
        stalled = await harness.call('POST', '/token', form(asked.auth_req_id));
        elapsed = performance.now() - started;
        expect(await stuck).toBeInstanceOf(CountersignError);
      } finally {
        server.child.kill('SIGCONT');
      }
      console.log(`SIGSTOP, ${timeoutMs} ms command timeout: 503 after ${Math.round(elapsed)} ms`);
      // Counted where the operator sees it: countersign_store_errors_total, by kind.
      const counted = (await harness.deps.metrics.storeErrors.get()).values;
      expect(counted.filter((sample) => sample.labels.kind === 'deadline' || sample.labels.kind === 'timeout').reduce((sum, sample) => sum + sample.value, 0)).toBeGreaterThan(0);
      expect([stalled.status, stalled.body.error, stalled.headers.get('retry-after')]).toEqual([503, 'temporarily_unavailable', '2']);
      expect(elapsed).toBeLessThan(timeoutMs + 1000);
      // And Redis answers again once it runs.
      await sleep(100);
      expect((await harness.call('POST', '/token', form(asked.auth_req_id))).status).toBe(400);
    } finally {
      await harness.close();
    }
  });
});
