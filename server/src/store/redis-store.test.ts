import { Redis } from 'ioredis';
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

  it('converts a window kept as a decimal heap ("n", "h:<i>" → "<score> CUR=amount\\0member") on first touch', async () => {
    const store = await connect();
    try {
      const k = `heap-window:${randomBytes(4).toString('hex')}`;
      const T = 1_700_000_000_000;
      await store.hashSet(k, {
        'h:1': `${T - 120_000} EUR=999\0old`, 'h:2': `${T} EUR=100\0a`, 'h:3': `${T + 10} EUR=50 USD=7\0b`,
        'm:old': '1', 'm:a': '2', 'm:b': '3', n: '3', t: 'EUR=1149 USD=7', x: String(T + 10),
      }, 60);
      expect(await store.windowAdd(k, { nowMs: T + 20, windowMs: 60_000, member: 'c', amounts: { EUR: 1 }, maxCount: 10 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 151, USD: 7 } });
      expect(await store.windowRemove(k, 'old')).toBe(false);
      expect(await store.windowRemove(k, 'b')).toBe(true);
      expect(await store.windowAdd(k, { nowMs: T + 20, windowMs: 60_000, member: 'd', maxCount: 10 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 101 } });
    } finally {
      await store.close();
    }
  });

  it('keeps an entry of a 43-character member and one currency within 64 bytes, so a window of 50 stays a listpack', async () => {
    const store = await connect();
    const redis = new Redis(inject('redisUrl'));
    try {
      const k = `compact-window:${randomBytes(4).toString('hex')}`;
      const T = 1_795_977_923_372;
      for (let i = 0; i < 50; i++) {
        const member = randomBytes(32).toString('base64url');
        expect((await store.windowAdd(k, { nowMs: T + i, windowMs: 3_600_000, member, amounts: { EUR: 49_000 + i }, maxCount: 100 })).ok).toBe(true);
      }
      expect(await redis.call('OBJECT', 'ENCODING', `${prefix}${k}`)).toBe('listpack');
      expect(await store.windowAdd(k, { nowMs: T + 50, windowMs: 3_600_000, member: 'x', maxCount: 100 })).toStrictEqual({ ok: true, count: 51, totals: { EUR: 50 * 49_000 + 1225 } });
      // Base 36 and back is exact up to 2^53 - 1, and for negative scores.
      const big = `big-window:${randomBytes(4).toString('hex')}`;
      const max = Number.MAX_SAFE_INTEGER;
      expect(await store.windowAdd(big, { nowMs: T, windowMs: 0, member: 'a', score: max, amounts: { EUR: max }, maxCount: 5 })).toStrictEqual({ ok: true, count: 1, totals: { EUR: max } });
      expect(await store.windowAdd(big, { nowMs: T, windowMs: 0, member: 'b', score: max - 1, amounts: { EUR: 0, USD: max - 35 }, maxCount: 5, maxAmounts: { USD: max - 35 } })).toStrictEqual({ ok: true, count: 2, totals: { EUR: max, USD: max - 35 } });
      expect(await store.windowAdd(big, { nowMs: 0, windowMs: 2_000_000, member: 'c', score: -1_234_567, amounts: { USD: 1 }, maxCount: 5 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: max, USD: max - 34 } });
      expect(await store.windowRemove(big, 'b')).toBe(true);
      expect(await store.windowAdd(big, { nowMs: 0, windowMs: 2_000_000, member: 'd', score: -999_999, maxCount: 5 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: max, USD: 1 } });
      // The clock passes c's score (-1,234,567 + 2,000,000 ms) but not d's.
      expect(await store.windowAdd(big, { nowMs: 800_000, windowMs: 2_000_000, member: 'e', maxCount: 5 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: max } });
      expect(await store.windowRemove(big, 'c')).toBe(false);
      expect(await store.windowRemove(big, 'd')).toBe(true);
    } finally {
      redis.disconnect();
      await store.close();
    }
  });
});

describe('RedisStore audit indexes of the earlier layout', () => {
  it('reads a list index, and converts it to the string layout on its next append, in the same script call', async () => {
    const store = await connect();
    const redis = new Redis(inject('redisUrl'));
    try {
      const tag = `{${randomBytes(4).toString('hex')}}`;
      const [chain, index] = [`chain:${tag}`, `idx:${tag}:a`];
      const first = await store.streamAppendManyAfter(chain, null, [{ n: '1' }, { n: '2' }]);
      if (!first.ok) throw new Error('the first batch after null must succeed');
      // As the list layout wrote it: RPUSH of each id.
      await redis.rpush(`${prefix}${index}`, ...first.ids);
      expect(await store.streamIndexRead(index)).toStrictEqual(first.ids);
      const second = await store.streamAppendManyAfter(chain, first.ids[1]!, [{ n: '3' }], [{ key: index, ttlSeconds: 60 }]);
      if (!second.ok) throw new Error('a batch after the newest id must succeed');
      expect(await redis.type(`${prefix}${index}`)).toBe('string');
      expect(await redis.get(`${prefix}${index}`)).toBe([...first.ids, ...second.ids].join(' '));
      expect(await redis.pttl(`${prefix}${index}`)).toBeGreaterThan(50_000);
      expect(await store.streamIndexRead(index)).toStrictEqual([...first.ids, ...second.ids]);
      // A request's first two ids, appended one call after the other, stay one embedded string:
      // GET and SET, not APPEND, whose doubled allocation would make it a raw string.
      const pending = `idx:${tag}:b`;
      const third = await store.streamAppendManyAfter(chain, second.ids[0]!, [{ n: '4' }], [{ key: pending, ttlSeconds: 60 }]);
      if (!third.ok) throw new Error('a batch after the newest id must succeed');
      await store.streamAppendManyAfter(chain, third.ids[0]!, [{ n: '5' }], [{ key: pending, ttlSeconds: 60 }]);
      expect(await store.streamIndexRead(pending)).toHaveLength(2);
      expect(await redis.call('OBJECT', 'ENCODING', `${prefix}${pending}`)).toBe('embstr');
    } finally {
      redis.disconnect();
      await store.close();
    }
  });
});
