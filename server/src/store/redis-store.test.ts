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

describe('RedisStore windows', () => {
  it('keep a window as one list, compact at any length, with exact totals up to 2^53 - 1', async () => {
    const store = await connect();
    const redis = new Redis(inject('redisUrl'));
    try {
      const k = `compact-window:{${randomBytes(4).toString('hex')}}`;
      const T = 1_795_977_923_372;
      for (let i = 0; i < 1000; i++) {
        expect((await store.windowAdd(k, { nowMs: T + i, windowMs: 3_600_000, member: randomBytes(12).toString('base64url'), amounts: { EUR: 49_000 + i }, maxCount: 2000 })).ok).toBe(true);
      }
      expect(await redis.type(`${prefix}${k}`)).toBe('list');
      expect(await redis.llen(`${prefix}${k}`)).toBe(1001);
      expect(await redis.lindex(`${prefix}${k}`, 0)).toBe(`#${(T + 999).toString(36)}/${(1000).toString(36)} EUR=${1000 * 49_000 + 499_500}`);
      // An entry: its time and amount in base 36, a NUL, the member; about 40 bytes in a listpack.
      expect(await redis.lindex(`${prefix}${k}`, 1)).toMatch(new RegExp(`^${T.toString(36)} EUR${(49_000).toString(36)}\u0000[A-Za-z0-9_-]{16}$`));
      expect(Number(await redis.call('MEMORY', 'USAGE', `${prefix}${k}`, 'SAMPLES', '0')) / 1000).toBeLessThan(48);
      expect(await redis.pttl(`${prefix}${k}`)).toBeGreaterThan(3_500_000);
      // Base 36 and back is exact up to 2^53 - 1.
      const big = `big-window:${randomBytes(4).toString('hex')}`;
      const max = Number.MAX_SAFE_INTEGER;
      expect(await store.windowAdd(big, { nowMs: T, windowMs: 60_000, member: 'a', amounts: { EUR: max }, maxCount: 5 })).toStrictEqual({ ok: true, count: 1, totals: { EUR: max } });
      expect(await store.windowAdd(big, { nowMs: T + 1, windowMs: 60_000, member: 'b', amounts: { EUR: 0, USD: max - 35 }, maxCount: 5, maxAmounts: { USD: max - 35 } })).toStrictEqual({ ok: true, count: 2, totals: { EUR: max, USD: max - 35 } });
      expect(await store.windowAdd(big, { nowMs: T + 2, windowMs: 60_000, member: 'c', amounts: { USD: 1 }, maxCount: 5, maxAmounts: { USD: max - 35 } })).toMatchObject({ ok: false, exceeded: 'amount' });
      expect(await store.windowRemove(big, 'a')).toBe(true);
      expect(await store.windowAdd(big, { nowMs: T + 60_001, windowMs: 60_000, member: 'd', amounts: { USD: 34 }, maxCount: 5 })).toStrictEqual({ ok: true, count: 1, totals: { USD: 34 } });
      // A list whose first element is not a header (written by something else) is refused, and left as it is.
      const foreign = `foreign-window:${randomBytes(4).toString('hex')}`;
      await redis.rpush(`${prefix}${foreign}`, 'x', 'y');
      await expect(store.windowAdd(foreign, { nowMs: T, windowMs: 60_000, member: 'a', maxCount: 5 })).rejects.toThrow(/has no header/);
      await expect(store.windowRemove(foreign, 'y')).resolves.toBe(false);
      expect(await redis.lrange(`${prefix}${foreign}`, 0, -1)).toStrictEqual(['x', 'y']);
    } finally {
      redis.disconnect();
      await store.close();
    }
  });
});

describe('RedisStore windows written by the earlier layout, and long expiries', () => {
  it('counts a window whose header has no count by its length, and drops many expired entries in one add', async () => {
    const store = await connect();
    const redis = new Redis(inject('redisUrl'));
    try {
      const T = 1_795_977_923_372;
      // The layout an earlier version writes (and keeps writing during a rolling upgrade): no count in the header.
      const old = `old-window:{${randomBytes(4).toString('hex')}}`;
      await redis.rpush(`${prefix}${old}`, `#${(T + 1).toString(36)} EUR=300`, `${T.toString(36)} EUR${(100).toString(36)}\u0000a`, `${(T + 1).toString(36)} EUR${(200).toString(36)}\u0000b`);
      expect(await store.windowAdd(old, { nowMs: T + 2, windowMs: 60_000, member: 'c', amounts: { EUR: 5 }, maxCount: 5 })).toStrictEqual({ ok: true, count: 3, totals: { EUR: 305 } });
      expect(await redis.lindex(`${prefix}${old}`, 0)).toBe(`#${(T + 2).toString(36)}/3 EUR=305`);
      expect(await store.windowRemove(old, 'a')).toBe(true);
      expect(await redis.lrange(`${prefix}${old}`, 0, 0)).toStrictEqual([`#${(T + 2).toString(36)}/2 EUR=205`]);
      // 100 entries, of which 61 leave at once: more than one read of the oldest entries.
      const k = `long-window:{${randomBytes(4).toString('hex')}}`;
      for (let i = 0; i < 100; i++) await store.windowAdd(k, { nowMs: T + i, windowMs: 1000, member: `m${i}`, amounts: { EUR: i }, maxCount: 1000 });
      const kept = Array.from({ length: 39 }, (_, i) => 61 + i).reduce((a, b) => a + b, 0);
      expect(await store.windowAdd(k, { nowMs: T + 1060, windowMs: 1000, member: 'last', amounts: { EUR: 1 }, maxCount: 1000 })).toStrictEqual({ ok: true, count: 40, totals: { EUR: kept + 1 } });
      expect(await redis.llen(`${prefix}${k}`)).toBe(41);
      expect(await redis.lindex(`${prefix}${k}`, 1)).toMatch(new RegExp(`^${(T + 61).toString(36)} `));
      // Everything expired and the add refused: the window is gone.
      expect(await store.windowAdd(k, { nowMs: T + 5000, windowMs: 1000, member: 'x', maxCount: 0 })).toMatchObject({ ok: false, exceeded: 'count' });
      expect(await redis.exists(`${prefix}${k}`)).toBe(0);
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
