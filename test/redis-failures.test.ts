import { CountersignError } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { Redis, type Cluster } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis, connectRedisStore, observeStoreErrors, RedisStore, runWithStoreDeadline, StoreUnavailableError } from '../server/src/store/index.ts';
import { startRedisCluster, startRedisServer, stopRedisServer, testPrefix, type RedisServerProcess } from './support/cluster.ts';
import { createHarness, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

/**
 * Redis errors produced for real, on Redis servers and a Redis Cluster of this file's own (it moves
 * slots, flushes script caches, runs busy scripts and stops a server, which would disturb the
 * run's shared ones): each is retried where that is safe, or answered 503, never a 500; a stale
 * slot map heals on the first MOVED; a request's store calls share one deadline.
 * The mapping of every error class is in server/src/store/redis-failures.test.ts.
 */

/** A value, or the store's 503, or (the failure these tests catch) anything else. */
async function outcome<T>(promise: Promise<T>): Promise<T | 'unavailable'> {
  return promise.then(
    (value) => value,
    (error: unknown) => {
      if (error instanceof StoreUnavailableError) return 'unavailable';
      throw error;
    },
  );
}

describe('a stale slot map (a private 3-master cluster, slots moved under a connected client)', () => {
  let cluster: Awaited<ReturnType<typeof startRedisCluster>>;
  let admins: Map<string, Redis>;
  let client: Cluster;
  let store: RedisStore;
  const prefix = testPrefix();

  beforeAll(async () => {
    cluster = await startRedisCluster(3);
    admins = new Map(cluster.nodes.map((node) => [`127.0.0.1:${node.port}`, new Redis(node.port, { lazyConnect: false })]));
    client = (await connectRedis({ kind: 'cluster', nodes: cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })) }, { onError: () => {} })) as Cluster;
    store = new RedisStore({ redis: client, prefix });
  });
  afterAll(async () => {
    await store.close();
    for (const admin of admins.values()) admin.disconnect();
    await cluster.stop();
  });

  const slotOf = async (key: string) =>
    Number(
      await admins
        .values()
        .next()
        .value!.call('CLUSTER', 'KEYSLOT', prefix + key),
    );
  /** The address (`127.0.0.1:port`) the client believes owns `slot`. */
  const ownerInMap = (slot: number) => client.slots[slot]![0]!;

  /** `count` keys (`req:{t:N}`) whose slots the client maps to `owner`, each in a slot of its own. */
  async function keysOn(owner: string, count: number, from = 0): Promise<{ key: string; slot: number }[]> {
    const found: { key: string; slot: number }[] = [];
    for (let i = from; found.length < count; i++) {
      const key = `req:{t:${i}}`;
      const slot = await slotOf(key);
      if (ownerInMap(slot) === owner && !found.some((f) => f.slot === slot)) found.push({ key, slot });
    }
    return found;
  }

  /** Moves `slot` and its keys from one master to another, as `redis-cli --cluster reshard` does. */
  async function moveSlot(slot: number, from: string, to: string): Promise<void> {
    const [source, target] = [admins.get(from)!, admins.get(to)!];
    const [sourceId, targetId] = (await Promise.all([source.call('CLUSTER', 'MYID'), target.call('CLUSTER', 'MYID')])) as [string, string];
    await target.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', sourceId);
    await source.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', targetId);
    for (;;) {
      const keys = (await source.call('CLUSTER', 'GETKEYSINSLOT', slot, 100)) as string[];
      if (keys.length === 0) break;
      await source.call('MIGRATE', '127.0.0.1', to.split(':')[1]!, '', 0, 5000, 'KEYS', ...keys);
    }
    for (const admin of [target, source, ...[...admins.values()].filter((a) => a !== source && a !== target)]) await admin.call('CLUSTER', 'SETSLOT', slot, 'NODE', targetId);
  }

  it('heals on the first MOVED: the calls that met it succeed after a slot-map refresh (or answer 503), and the next ones succeed', async () => {
    const [from, to] = [...admins.keys()] as [string, string];
    // Four keys in four slots of one master: in one tick they travel in one pipeline, and their
    // MOVED replies differ by slot, the case ioredis does not follow for a pipeline.
    const moved = await keysOn(from, 4);
    for (const { key } of moved) expect(await store.hashCreate(key, { state: 'approved' }, 60)).toBe(true);
    for (const { slot } of moved) await moveSlot(slot, from, to);
    expect(moved.map(({ slot }) => ownerInMap(slot))).toEqual(moved.map(() => from));

    const first = await Promise.all(moved.flatMap(({ key }) => [outcome(store.hashGetField(key, 'state')), outcome(store.compareAndSet(key, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'approved' }).then((r) => r.ok))]));
    for (const answer of first) expect(['approved', true, 'unavailable']).toContain(answer);
    // The map now names the new owner, so every next call goes straight there.
    expect(moved.map(({ slot }) => ownerInMap(slot))).toEqual(moved.map(() => to));
    const next = await Promise.all(moved.map(({ key }) => store.compareAndSet(key, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' })));
    expect(next.map((r) => [r.ok, r.fields?.state])).toEqual(moved.map(() => [true, 'redeemed']));
    expect(await Promise.all(moved.map(({ key }) => store.hashGetField(key, 'state')))).toEqual(moved.map(() => 'redeemed'));
  });

  it('follows ASK for calls of one tick to two slots in migration, each on its own', async () => {
    const [from, to] = [...admins.keys()] as [string, string];
    const migrating = await keysOn(from, 2, 3000);
    for (const { key } of migrating) expect(await store.hashCreate(key, { state: 'approved' }, 60)).toBe(true);
    const [sourceId, targetId] = (await Promise.all([admins.get(from)!.call('CLUSTER', 'MYID'), admins.get(to)!.call('CLUSTER', 'MYID')])) as [string, string];
    // Half-way through a reshard: the keys are on the importing node, the slots still the source's,
    // so the source answers ASK, with the slot in the message (the two differ).
    for (const { slot } of migrating) {
      await admins.get(to)!.call('CLUSTER', 'SETSLOT', slot, 'IMPORTING', sourceId);
      await admins.get(from)!.call('CLUSTER', 'SETSLOT', slot, 'MIGRATING', targetId);
      const keys = (await admins.get(from)!.call('CLUSTER', 'GETKEYSINSLOT', slot, 100)) as string[];
      await admins.get(from)!.call('MIGRATE', '127.0.0.1', to.split(':')[1]!, '', 0, 5000, 'KEYS', ...keys);
    }
    await expect(admins.get(from)!.call('HGET', prefix + migrating[0]!.key, 'state')).rejects.toThrow(/^ASK /);
    const answers = await Promise.all(migrating.map(({ key }) => store.compareAndSet(key, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' })));
    expect(answers.map((r) => [r.ok, r.fields?.state])).toEqual([
      [true, 'redeemed'],
      [true, 'redeemed'],
    ]);
    for (const { slot } of migrating) for (const admin of admins.values()) await admin.call('CLUSTER', 'SETSLOT', slot, 'NODE', targetId);
  });

  it('runs a script that met NOSCRIPT on its new node again with EVAL, inside a redirected pipeline', async () => {
    const [, from, to] = [...admins.keys()] as [string, string, string];
    const [onTarget] = await keysOn(to, 1, 1000);
    const [movedKey] = await keysOn(from, 1, 2000);
    // The script has run on this connection to the target node, so ioredis sends it there by SHA…
    expect(await store.hashCreate(onTarget!.key, { state: 'approved' }, 60)).toBe(true);
    expect((await store.compareAndSet(onTarget!.key, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' })).ok).toBe(true);
    expect(await store.hashCreate(movedKey!.key, { state: 'approved' }, 60)).toBe(true);
    // …but the node has lost its script cache (as a restarted or promoted node has), and the
    // slot of the next call has moved to it: ioredis follows the MOVED (one command, one error),
    // re-creating the command's promise and with it losing the script's NOSCRIPT fallback.
    await admins.get(to)!.call('SCRIPT', 'FLUSH');
    await moveSlot(movedKey!.slot, from, to);
    const swapped = await store.compareAndSet(movedKey!.key, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' });
    expect([swapped.ok, swapped.fields?.state]).toEqual([true, 'redeemed']);
  });
});

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
      const reloaded = admin.call('DEBUG', 'RELOAD');
      let done = false;
      void reloaded.finally(() => (done = true));
      const answers: Promise<string | null | 'unavailable'>[] = [];
      const seen = new Set<string>();
      while (!done) {
        answers.push(outcome(store.get('1')));
        // The same read without the store: what Redis really answers meanwhile.
        seen.add(await probe.get('key:1').then(String, (error: Error) => error.message.split(' ')[0]!));
        await sleep(5);
      }
      await reloaded;
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
