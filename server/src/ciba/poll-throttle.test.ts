import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectRedisStore, keys, MemoryStore, type Store } from '../store/index.ts';
import { pollThrottle } from './poll-throttle.ts';

const T = 1_795_977_923_000;

// The CIBA rule on both stores: the store only spaces calls; the seconds, the 5 s default and the
// 5 s of slow_down are this module's (CIBA Core §7.3, §11).
describe.each([
  ['MemoryStore', async (): Promise<Store> => new MemoryStore({ now: () => T })],
  ['RedisStore', (): Promise<Store> => connectRedisStore(inject('redisUrl'), { prefix: `test:${randomBytes(6).toString('hex')}:` })],
])('pollThrottle on %s', (_, makeStore) => {
  let store: Store;
  beforeAll(async () => {
    store = await makeStore();
  });
  afterAll(async () => {
    await store.close();
  });
  const request = async (fields: Record<string, string>) => {
    const key = keys.request('default', `req_${randomBytes(8).toString('hex')}`);
    await store.hashCreate(key, fields, 60);
    return key;
  };

  it('answers slow_down to a poll before interval has passed, and adds 5 s to interval for every later poll', async () => {
    const key = await request({ interval: '5', state: 'pending' });
    expect(await pollThrottle(store, key, T)).toStrictEqual({ status: 'ok', fields: { interval: '5', state: 'pending', next_poll_at: String(T + 5000) } });
    expect(await pollThrottle(store, key, T + 1000)).toMatchObject({ status: 'slow_down', fields: { interval: '10', next_poll_at: String(T + 11_000) } });
    expect(await pollThrottle(store, key, T + 11_000)).toMatchObject({ status: 'ok', fields: { interval: '10', next_poll_at: String(T + 21_000) } });
  });

  it('takes 5 s when the record holds no interval', async () => {
    const key = await request({ state: 'pending' });
    expect((await pollThrottle(store, key, T)).fields).toMatchObject({ interval: '5', next_poll_at: String(T + 5000) });
    expect((await pollThrottle(store, key, T + 4999)).status).toBe('slow_down');
  });

  it('lets a poll within the leeway through', async () => {
    const key = await request({ interval: '5' });
    await pollThrottle(store, key, T, 250);
    expect((await pollThrottle(store, key, T + 4750, 250)).status).toBe('ok');
    expect((await pollThrottle(store, key, T + 9499, 250)).status).toBe('slow_down');
  });

  it('answers missing for a request that is not there', async () => {
    expect(await pollThrottle(store, keys.request('default', 'req_missing_0123456789'), T)).toStrictEqual({ status: 'missing', fields: null });
  });
});
