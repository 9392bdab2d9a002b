import webpush from 'web-push';
import { describe, expect, it } from 'vitest';
import { keys, MemoryStore } from '../store/index.ts';
import { DEV_VAPID_SUBJECT, loadVapidKeys } from './vapid-keys.ts';

describe('loadVapidKeys', () => {
  it('generates keys once in development and keeps them in the store', async () => {
    const store = new MemoryStore();
    const first = await loadVapidKeys({ store, production: false });
    const again = await loadVapidKeys({ store, production: false });

    expect(first.source).toBe('generated');
    expect(again.source).toBe('store');
    expect(again).toMatchObject({ publicKey: first.publicKey, privateKey: first.privateKey, subject: DEV_VAPID_SUBJECT });
    expect(JSON.parse((await store.get(keys.config('vapid'))) ?? 'null')).toEqual({ publicKey: first.publicKey, privateKey: first.privateKey });
  });

  it('agrees on one pair when two instances start together', async () => {
    const store = new MemoryStore();
    const [a, b] = await Promise.all([loadVapidKeys({ store, production: false }), loadVapidKeys({ store, production: false })]);
    expect(b.publicKey).toBe(a.publicKey);
    expect(b.privateKey).toBe(a.privateKey);
    expect([a.source, b.source].sort()).toEqual(['generated', 'store']);
  });

  it('uses configured keys and stores nothing', async () => {
    const store = new MemoryStore();
    const pair = webpush.generateVAPIDKeys();
    const loaded = await loadVapidKeys({ store, ...pair, subject: 'https://ops.example.com/contact', production: true });
    expect(loaded).toEqual({ ...pair, subject: 'https://ops.example.com/contact', source: 'environment' });
    expect(await store.get(keys.config('vapid'))).toBeNull();
  });

  it('refuses keys that are not a pair, or only one of them', async () => {
    const store = new MemoryStore();
    const one = webpush.generateVAPIDKeys();
    const other = webpush.generateVAPIDKeys();
    await expect(loadVapidKeys({ store, publicKey: one.publicKey, privateKey: other.privateKey, production: false })).rejects.toThrow(/do not form a key pair/);
    await expect(loadVapidKeys({ store, publicKey: one.publicKey, production: false })).rejects.toThrow(/set together/);
    await expect(loadVapidKeys({ store, publicKey: 'abc', privateKey: one.privateKey, production: false })).rejects.toThrow(/65 bytes/);
  });

  it('never puts key material into an error message', async () => {
    const one = webpush.generateVAPIDKeys();
    const other = webpush.generateVAPIDKeys();
    const error = await loadVapidKeys({ store: new MemoryStore(), publicKey: one.publicKey, privateKey: other.privateKey, production: false }).catch((e: unknown) => e);
    expect(String((error as Error).message)).not.toContain(other.privateKey);
    expect(String((error as Error).message)).not.toContain(one.publicKey);
  });

  it('requires keys and a subject in production', async () => {
    const store = new MemoryStore();
    const pair = webpush.generateVAPIDKeys();
    await expect(loadVapidKeys({ store, subject: 'mailto:ops@example.com', production: true })).rejects.toMatchObject({ code: 'server_error' });
    await expect(loadVapidKeys({ store, ...pair, production: true })).rejects.toThrow(/VAPID_SUBJECT/);
    await expect(loadVapidKeys({ store, ...pair, subject: DEV_VAPID_SUBJECT, production: true })).rejects.toThrow(/placeholder/);
    expect(await store.get(keys.config('vapid'))).toBeNull();
  });

  it('refuses a subject that is not a mailto: or https: URL', async () => {
    const store = new MemoryStore();
    await expect(loadVapidKeys({ store, subject: 'http://ops.example.com', production: false })).rejects.toThrow(/mailto: or https:/);
    await expect(loadVapidKeys({ store, subject: 'ops@example.com', production: false })).rejects.toThrow(/mailto: or https:/);
  });

  it('refuses an unreadable stored pair instead of replacing it', async () => {
    const store = new MemoryStore();
    await store.set(keys.config('vapid'), '{"publicKey":"x"}');
    await expect(loadVapidKeys({ store, production: false })).rejects.toThrow(/unreadable/);
  });
});
