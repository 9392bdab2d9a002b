import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { inject } from 'vitest';
import { connectRedisStore } from './redis-store.ts';
import { describeStoreContract } from './store.case.ts';

// This file's own prefix on the run's shared Redis (test/setup/redis.ts); nothing is flushed.
const prefix = `test:${randomBytes(6).toString('hex')}:`;
const connect = () => connectRedisStore(inject('redisUrl'), { prefix });

describeStoreContract('RedisStore', connect, {
  // Redis keeps real time: TTL tests use 1 s TTLs and wait once for all of them.
  elapse: (ms) => sleep(ms),
  connectPeer: connect,
});
