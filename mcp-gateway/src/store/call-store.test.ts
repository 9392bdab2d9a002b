import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, inject, it } from 'vitest';
import type { CallRecord, CallStore } from './call-record.ts';
import { createMemoryCallStore } from './memory-call-store.ts';
import { createRedisCallStore } from './redis-call-store.ts';

const pending: CallRecord = { state: 'pending', auth_req_id: 'req_1', binding_message: 'memory: delete_entities #AbC1', interval: 5, expires_at: 1_000_000 };
const done: CallRecord = { state: 'done', auth_req_id: 'req_1', outcome: { result: { content: [{ type: 'text', text: 'ok' }], structuredContent: { success: true } } } };

/** The same contract on both stores: the gateway trusts either the same way. */
describe.each(['memory', 'redis'] as const)('call store (%s)', (kind) => {
  let clock = 0;
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  const store: CallStore = kind === 'memory' ? createMemoryCallStore(() => clock) : createRedisCallStore(inject('redisUrl'), prefix);
  afterAll(() => store.close());

  it('answers what was put, a replacement after it, and nothing once deleted', async () => {
    expect(await store.get('k1')).toBeUndefined();
    await store.put('k1', pending, 60);
    expect(await store.get('k1')).toEqual(pending);
    await store.put('k1', done, 60);
    expect(await store.get('k1')).toEqual(done);
    expect(await store.get('k2')).toBeUndefined();
    await store.delete('k1');
    expect(await store.get('k1')).toBeUndefined();
  });

  it('replaces a record only while it is exactly the one expected; of many racing, one wins', async () => {
    const approved: CallRecord = { state: 'approved', auth_req_id: 'req_2', binding_message: 'memory: delete_entities #XyZ9', access_token: 'at_1', expires_at: 2_000_000 };
    const redeemed = (n: number): CallRecord => ({ state: 'redeemed', auth_req_id: 'req_2', redemption_id: `rdm_${n}` });
    await store.put('k5', approved, 60);
    expect(await store.replace('k5', pending, redeemed(0), 60)).toBe(false);
    expect(await store.get('k5')).toEqual(approved);
    const wins = await Promise.all([1, 2, 3, 4, 5].map((n) => store.replace('k5', approved, redeemed(n), 60)));
    expect(wins.filter(Boolean)).toHaveLength(1);
    expect(await store.get('k5')).toEqual(redeemed(wins.indexOf(true) + 1));
    expect(await store.replace('missing', approved, redeemed(9), 60)).toBe(false);
    expect(await store.get('missing')).toBeUndefined();
  });

  it('hands out copies: changing an answer changes nothing stored', async () => {
    await store.put('k3', pending, 60);
    const read = (await store.get('k3')) as Extract<CallRecord, { state: 'pending' }>;
    read.interval = 99;
    expect(await store.get('k3')).toEqual(pending);
  });

  it('forgets a record after its TTL', async () => {
    await store.put('k4', pending, 2);
    if (kind === 'memory') {
      clock += 1_999;
      expect(await store.get('k4')).toEqual(pending);
      clock += 1;
      expect(await store.get('k4')).toBeUndefined();
    } else {
      // Redis keeps time itself: the key carries the TTL, under the store's prefix.
      const redis = new Redis(inject('redisUrl'));
      try {
        expect(await redis.ttl(`${prefix}call:k4`)).toBe(2);
      } finally {
        redis.disconnect();
      }
    }
  });
});
