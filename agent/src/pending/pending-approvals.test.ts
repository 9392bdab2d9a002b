import { Redis } from 'ioredis';
import { randomBytes } from 'node:crypto';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { callKey } from './call-key.ts';
import { createMemoryPendingApprovals, type PendingApproval, type PendingApprovals } from './pending-approvals.ts';
import { createRedisPendingApprovals } from './redis-pending-approvals.ts';

// The store of waiting approvals, in memory and on the test run's real Redis: the same behaviour
// from both, since a runner must not care which one it was given.

const redis = new Redis(inject('redisUrl'), { lazyConnect: true });
afterAll(() => redis.quit());

interface Clock {
  now: () => number;
  advance(ms: number): void;
}

function clock(): Clock {
  let at = 1_700_000_000_000;
  return { now: () => at, advance: (ms) => void (at += ms) };
}

const stores: [string, (now: () => number) => PendingApprovals][] = [
  ['memory', (now) => createMemoryPendingApprovals(now)],
  ['redis', (now) => createRedisPendingApprovals(redis, { prefix: `test:{pending-${randomBytes(6).toString('hex')}}:`, now })],
];

function record(call_key: string, auth_req_id: string, expires_at: number, extra: Partial<PendingApproval> = {}): PendingApproval {
  return { call_key, auth_req_id, tool: call_key.split(':')[0]!, interval: 5, expires_at, ...extra };
}

describe.each(stores)('pending approvals (%s)', (_name, make) => {
  it('finds a record by its call key and by its auth_req_id, and lists it', async () => {
    const time = clock();
    const store = make(time.now);
    const waiting = record('pay:abc', 'req_1', time.now() + 60_000, { binding_code: '42', run_state: '{"step":3}' });
    await store.put(waiting);
    expect(await store.get('pay:abc')).toEqual(waiting);
    expect(await store.getByRequest('req_1')).toEqual(waiting);
    expect(await store.list()).toEqual([waiting]);
    expect(await store.get('pay:other')).toBeUndefined();
    expect(await store.getByRequest('req_other')).toBeUndefined();
  });

  it('forgets a record once it expires, in every read', async () => {
    const time = clock();
    const store = make(time.now);
    await store.put(record('pay:abc', 'req_1', time.now() + 60_000));
    time.advance(60_000);
    expect(await store.get('pay:abc')).toBeUndefined();
    expect(await store.getByRequest('req_1')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it("replaces a call's record; the old request no longer finds it", async () => {
    const time = clock();
    const store = make(time.now);
    await store.put(record('pay:abc', 'req_1', time.now() + 60_000));
    const replaced = record('pay:abc', 'req_2', time.now() + 90_000, { access_token: 'at_2' });
    await store.put(replaced);
    expect(await store.get('pay:abc')).toEqual(replaced);
    expect(await store.getByRequest('req_2')).toEqual(replaced);
    expect(await store.getByRequest('req_1')).toBeUndefined();
    expect(await store.list()).toEqual([replaced]);
  });

  it('deletes a record under both of its keys; the others stay, listed by expiry', async () => {
    const time = clock();
    const store = make(time.now);
    const later = record('pay:b', 'req_b', time.now() + 90_000);
    const sooner = record('refund:c', 'req_c', time.now() + 30_000);
    await store.put(record('pay:a', 'req_a', time.now() + 60_000));
    await store.put(later);
    await store.put(sooner);
    await store.delete('pay:a');
    expect(await store.get('pay:a')).toBeUndefined();
    expect(await store.getByRequest('req_a')).toBeUndefined();
    expect(await store.list()).toEqual([sooner, later]);
  });
});

describe('callKey', () => {
  it('is the tool and the SHA-256 of the JCS arguments: key order does not matter, values do', async () => {
    const key = await callKey('pay', { amount_minor: 500, to: 'acct_7' });
    expect(key).toMatch(/^pay:[\w-]{43}$/);
    expect(await callKey('pay', { to: 'acct_7', amount_minor: 500 })).toBe(key);
    expect(await callKey('pay', { to: 'acct_7', amount_minor: 501 })).not.toBe(key);
    expect(await callKey('refund', { to: 'acct_7', amount_minor: 500 })).not.toBe(key);
  });
});
