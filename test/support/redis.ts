import { randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { connectRedisStore, type RedisStore } from '../../server/src/store/index.ts';

/** A fresh key prefix (`test:<hex>:`), so test files can share the run's one Redis. */
export function testPrefix(): string {
  return `test:${randomBytes(6).toString('hex')}:`;
}

/**
 * Connects a {@link RedisStore} to the private Redis of this test run (`inject('redisUrl')`, see
 * `test/setup/redis.ts`). Each call gets a fresh random prefix unless one is given; pass the same
 * prefix to get a second connection onto the same data. Close it in `afterAll`.
 *
 * @example
 * ```ts
 * let store: RedisStore;
 * beforeAll(async () => { store = await testRedisStore(); });
 * afterAll(() => store.close());
 * ```
 */
export function testRedisStore(options: { prefix?: string } = {}): Promise<RedisStore> {
  return connectRedisStore(inject('redisUrl'), { prefix: options.prefix ?? testPrefix() });
}
