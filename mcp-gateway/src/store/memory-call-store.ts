import type { CallRecord, CallStore } from './call-record.ts';

/**
 * A {@link CallStore} in this process's memory: what it holds is lost on a restart, so a call
 * waiting then is asked again (Countersign answers the same `auth_req_id` for the same
 * `transaction_id`, so the person is not asked twice), but a call that already ran is then
 * answered by the server's `already_redeemed`, not by its result.
 *
 * @param now - epoch milliseconds; `Date.now` by default.
 */
export function createMemoryCallStore(now: () => number = () => Date.now()): CallStore {
  const records = new Map<string, { record: CallRecord; until: number }>();
  return {
    async get(key) {
      const entry = records.get(key);
      if (entry && entry.until <= now()) records.delete(key);
      return entry && entry.until > now() ? structuredClone(entry.record) : undefined;
    },
    async put(key, record, ttlSeconds) {
      for (const [other, { until }] of records) if (until <= now()) records.delete(other);
      records.set(key, { record: structuredClone(record), until: now() + ttlSeconds * 1000 });
    },
    async replace(key, expected, next, ttlSeconds) {
      const entry = records.get(key);
      if (!entry || entry.until <= now() || JSON.stringify(entry.record) !== JSON.stringify(expected)) return false;
      records.set(key, { record: structuredClone(next), until: now() + ttlSeconds * 1000 });
      return true;
    },
    async delete(key) {
      records.delete(key);
    },
    async close() {},
  };
}
