import { Redis } from 'ioredis';
import type { CallRecord, CallStore } from './call-record.ts';

/**
 * A {@link CallStore} in Redis: one string key per call, `<prefix>call:<key>`, JSON, with a TTL
 * (`SET … EX`), so a restarted gateway resumes what the last one waited for and answers a call
 * that already ran with its recorded result.
 *
 * @param url - a `redis://` URL (`REDIS_URL`).
 */
export function createRedisCallStore(url: string, prefix: string): CallStore {
  // Few retries: a gateway whose Redis is down must answer the call with an error, not hold it.
  const redis = new Redis(url, { maxRetriesPerRequest: 2 });
  const name = (key: string) => `${prefix}call:${key}`;
  return {
    async get(key) {
      const json = await redis.get(name(key));
      return json === null ? undefined : (JSON.parse(json) as CallRecord);
    },
    async put(key, record, ttlSeconds) {
      await redis.set(name(key), JSON.stringify(record), 'EX', Math.max(1, Math.ceil(ttlSeconds)));
    },
    async replace(key, expected, next, ttlSeconds) {
      // GET, compare and SET in one script: the record is a JSON string written by `put` (stringified
      // in the same member order as `get` parsed it, so the expected text is exactly the stored one).
      const replaced = await redis.eval("if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]) return 1", 1, name(key), JSON.stringify(expected), JSON.stringify(next), String(Math.max(1, Math.ceil(ttlSeconds))));
      return replaced === 1;
    },
    async delete(key) {
      await redis.del(name(key));
    },
    async close() {
      redis.disconnect();
    },
  };
}
