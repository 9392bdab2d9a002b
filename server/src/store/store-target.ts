import type { Config } from '../config/index.ts';
import type { RedisTarget } from './redis-connect.ts';

/**
 * Where the server keeps its state: the Redis of `REDIS_URL`, the Redis Cluster of
 * `REDIS_CLUSTER_NODES`, or (null) the in-memory store. In production there must be a Redis: the
 * in-memory store forgets every pending approval, enrolled device and audit event when the process
 * stops, and another instance cannot share it, so a deployment on it would lose the trail its
 * operators answer for (docs/design.md "Storage": in-memory is the development default).
 *
 * @throws Error (at start-up) in production when neither is set.
 */
export function storeTargetOf(config: Pick<Config, 'production' | 'redisUrl' | 'redisCluster'>): RedisTarget | null {
  if (config.redisCluster) return { kind: 'cluster', ...config.redisCluster };
  if (config.redisUrl) return { kind: 'single', url: config.redisUrl };
  if (config.production) {
    throw new Error('invalid configuration: NODE_ENV=production needs REDIS_URL or REDIS_CLUSTER_NODES; the in-memory store loses every approval, device and audit event on restart and cannot be shared by instances.');
  }
  return null;
}
