import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, inject, it } from 'vitest';
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

describe('RedisStore windows of the earlier layout', () => {
  it('converts a window kept as member → "<score> CUR=amount" on first touch, keeping its entries, totals and TTL', async () => {
    const store = await connect();
    try {
      const k = `legacy-window:${randomBytes(4).toString('hex')}`;
      const T = 1_700_000_000_000;
      await store.hashSet(k, { a: `${T} EUR=100`, b: `${T + 10} EUR=50 USD=7`, old: `${T - 120_000} EUR=999`, bad: 'x EUR=1' }, 60);
      expect(await store.windowAdd(k, { nowMs: T + 20, windowMs: 60_000, member: 'c', amounts: { EUR: 1 }, maxCount: 10 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 151, USD: 7 } });
      expect(await store.windowRemove(k, 'old')).toBe(false);
      expect(await store.windowRemove(k, 'b')).toBe(true);
      expect(await store.windowAdd(k, { nowMs: T + 20, windowMs: 60_000, member: 'd', maxCount: 10 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 101 } });
    } finally {
      await store.close();
    }
  });
});
