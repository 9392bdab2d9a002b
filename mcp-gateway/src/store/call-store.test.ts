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
