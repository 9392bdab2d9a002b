import { MemoryStore, type Store } from '@countersign/server';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

/**
 * Every key a test's store holds now, without the Redis prefix: `MemoryStore.keyNames()`, or a SCAN
 * of the run's Redis under `redisPrefix` (the harness's `redisPrefix`). For tests that count what
 * the server stored.
 */
export async function storeKeys(store: Store, redisPrefix?: string): Promise<string[]> {
  if (store instanceof MemoryStore) return store.keyNames();
  if (!redisPrefix) throw new Error('storeKeys needs the Redis prefix of the store');
  const redis = new Redis(inject('redisUrl'));
  try {
    const found: string[] = [];
    let cursor = '0';
    do {
      const [next, batch] = await redis.scan(cursor, 'MATCH', `${redisPrefix}*`, 'COUNT', 1000);
      found.push(...batch.map((key) => key.slice(redisPrefix.length)));
      cursor = next;
    } while (cursor !== '0');
    return found;
  } finally {
    await redis.quit();
  }
}
