import { Cluster, type Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import { loadConfig } from '../config/index.ts';
import { connectRedis, redisFailureOf, type RedisTarget } from './redis-connect.ts';
import { RedisStore } from './redis-store.ts';

describe('REDIS_CLUSTER_NODES', () => {
  it('reads seed nodes, IPv6 ones included, with their credentials and TLS', () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: 'redis-a:7000, 10.0.0.2:7001,[::1]:7002', REDIS_USERNAME: 'countersign', REDIS_PASSWORD: 's3cret', REDIS_TLS: 'true' });
    expect(config.redisCluster).toEqual({
      nodes: [
        { host: 'redis-a', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: 'countersign',
      password: 's3cret',
      tls: true,
    });
    expect(config.redisUrl).toBeUndefined();
    expect(config.redisCommandTimeoutMs).toBe(2000);
  });

  it.each([
    ['both a URL and cluster nodes', { REDIS_URL: 'redis://localhost:6379', REDIS_CLUSTER_NODES: 'localhost:7000' }, /not both/],
    ['a node without a port', { REDIS_CLUSTER_NODES: 'localhost' }, /REDIS_CLUSTER_NODES/],
    ['a URL in the node list', { REDIS_CLUSTER_NODES: 'redis://localhost:7000' }, /REDIS_CLUSTER_NODES/],
    ['a port out of range', { REDIS_CLUSTER_NODES: 'localhost:70000' }, /out of range/],
    ['a password for a single Redis (it goes in the URL)', { REDIS_URL: 'redis://localhost:6379', REDIS_PASSWORD: 'x' }, /REDIS_URL/],
  ])('refuses %s at start', (_, environment, message) => {
    expect(() => loadConfig(environment)).toThrow(message);
  });
});

describe('connectRedis', () => {
  it('reaches the run’s Redis Cluster from its seed list, and a store on it works across the masters', async () => {
    const config = loadConfig({ REDIS_CLUSTER_NODES: inject('redisClusterNodes'), REDIS_COMMAND_TIMEOUT_MS: '500' });
    const redis = await connectRedis({ kind: 'cluster', ...config.redisCluster! }, { commandTimeoutMs: config.redisCommandTimeoutMs });
    const store = new RedisStore({ redis, prefix: `test:connect:${Date.now()}:` });
    try {
      // Sixteen tags land on all three masters; each compare-and-swap runs where its key lives.
      for (let i = 0; i < 16; i++) {
        const key = `req:{default:connect-${i}}`;
        expect(await store.hashCreate(key, { state: 'approved' }, 60)).toBe(true);
        expect((await store.compareAndSet(key, [{ field: 'state', op: 'eq', value: 'approved' }], { state: 'redeemed' })).ok).toBe(true);
      }
    } finally {
      await store.close();
    }
  });

  it('leaves a cluster command whose node connection closed under it to the store, never resent blindly: it may have run', async () => {
    const redis = (await connectRedis({ kind: 'cluster', ...loadConfig({ REDIS_CLUSTER_NODES: inject('redisClusterNodes') }).redisCluster! }, { onError: () => {} })) as Cluster;
    try {
      // ioredis' default (100) resends it, a whole pipeline at once; the store retries only reads (redis-guard.ts).
      expect(redis.options.retryDelayOnFailover).toBe(0);
    } finally {
      redis.disconnect();
    }
  });

  it.each<[string, RedisTarget]>([
    ['a single Redis', { kind: 'single', url: 'redis://127.0.0.1:1' }],
    ['a cluster', { kind: 'cluster', nodes: [{ host: '127.0.0.1', port: 1 }] }],
  ])('fails at once, and says why, when %s cannot be reached', async (_, target) => {
    const started = Date.now();
    const error = await connectRedis(target).then(
      () => null,
      (reason: Error) => reason,
    );
    expect(error?.message).toMatch(/^cannot reach Redis/);
    expect(redisFailureOf(error)).toBe('unavailable');
    expect(Date.now() - started).toBeLessThan(2000);
  });

  /** Counts the socket writes of every connection of `redis` (each node's, in a cluster). */
  function countWrites(redis: Redis | Cluster): () => number {
    let writes = 0;
    const connections = redis instanceof Cluster ? redis.nodes('all') : [redis];
    for (const connection of connections) {
      const stream = (connection as unknown as { stream?: { write: (...args: unknown[]) => boolean } }).stream;
      // A cluster connects to a node at its first command; the test warms up the one it uses.
      if (!stream) continue;
      const write = stream.write.bind(stream);
      stream.write = (...args: unknown[]) => {
        writes += 1;
        return write(...args);
      };
    }
    return () => writes;
  }

  it.each(['single', 'cluster'] as const)('sends the commands a %s client is given in one tick in one write (automatic pipelining)', async (kind) => {
    const redis = kind === 'single' ? await connectRedis({ kind: 'single', url: inject('redisUrl') }) : await connectRedis({ kind: 'cluster', ...loadConfig({ REDIS_CLUSTER_NODES: inject('redisClusterNodes') }).redisCluster! });
    try {
      const tag = `{test:pipelining:${Date.now()}}`;
      await redis.get(`${tag}:warm-up`);
      const writes = countWrites(redis);
      // Three commands in one hash tag, as one request's independent steps are: one round trip.
      await Promise.all([redis.set(`${tag}:a`, '1', 'EX', 60), redis.get(`${tag}:b`), redis.hgetall(`${tag}:c`)]);
      expect(writes()).toBe(1);
      // Awaited one after another, each is a write (and a round trip) of its own.
      await redis.get(`${tag}:a`);
      await redis.get(`${tag}:b`);
      expect(writes()).toBe(3);
    } finally {
      redis.disconnect();
    }
  });

  it('fails a command whose reply does not come within the command timeout, as from a stalled Redis', async () => {
    const redis = await connectRedis({ kind: 'single', url: inject('redisUrl') }, { commandTimeoutMs: 100 });
    try {
      // Stop reading replies the way a stalled Redis would: pause this connection's socket.
      const stream = (redis as unknown as { stream: { pause(): void; resume(): void } }).stream;
      stream.pause();
      const failure = await redis.get('x').then(
        () => null,
        (reason: unknown) => reason,
      );
      stream.resume();
      expect(redisFailureOf(failure)).toBe('timeout');
    } finally {
      redis.disconnect();
    }
  });
});
