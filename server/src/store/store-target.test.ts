import { describe, expect, it } from 'vitest';
import { storeTargetOf } from './store-target.ts';

describe('storeTargetOf', () => {
  const cluster = { nodes: [{ host: 'redis-1', port: 6379 }], tls: true };

  it('takes the Redis Cluster, then REDIS_URL, else the in-memory store in development', () => {
    expect(storeTargetOf({ production: true, redisUrl: undefined, redisCluster: cluster })).toEqual({ kind: 'cluster', ...cluster });
    expect(storeTargetOf({ production: true, redisUrl: 'rediss://redis.internal:6380', redisCluster: undefined })).toEqual({ kind: 'single', url: 'rediss://redis.internal:6380' });
    expect(storeTargetOf({ production: false, redisUrl: undefined, redisCluster: undefined })).toBeNull();
  });

  it('refuses to run production on the in-memory store', () => {
    expect(() => storeTargetOf({ production: true, redisUrl: undefined, redisCluster: undefined })).toThrow(/NODE_ENV=production needs REDIS_URL or REDIS_CLUSTER_NODES/);
  });
});
