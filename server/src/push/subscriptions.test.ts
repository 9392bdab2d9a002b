import { describe, expect, it } from 'vitest';
import type { PushSubscriptionJSON } from '@countersign/shared';
import { keys, MemoryStore } from '../store/index.ts';
import { deletePushSubscription, isAllowedPushEndpoint, listPushSubscriptions, MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE, savePushSubscription } from './subscriptions.ts';

const subscription = (endpoint: string): PushSubscriptionJSON => ({
  endpoint,
  expirationTime: null,
  keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
});

describe('isAllowedPushEndpoint', () => {
  const production = { production: true };
  const development = { production: false };

  it.each([
    'https://fcm.googleapis.com/fcm/send/abc:def',
    'https://updates.push.services.mozilla.com/wpush/v2/gAAAA',
    'https://wns2-par02p.notify.windows.com/w/?token=BQYAAA',
    'https://web.push.apple.com/QGuQyavXutnMH',
    'https://api.push.apple.com/3/device/abc',
    'https://FCM.googleapis.com/fcm/send/abc',
    'https://fcm.googleapis.com:443/fcm/send/abc', // the default port, written out
  ])('accepts a known push service in production: %s', (url) => {
    expect(isAllowedPushEndpoint(url, production)).toBe(true);
  });

  it.each([
    'https://example.com/push',
    'https://127.0.0.1:8443/push',
    'https://169.254.169.254/latest/meta-data',
    'https://localhost/push',
    'https://notify.windows.com/w', // a wildcard matches subdomains, not the bare domain
    'https://fcm.googleapis.com.evil.example/fcm/send/abc',
    'https://evilfcm.googleapis.com/fcm/send/abc',
    'https://xnotify.windows.com/w',
    'http://fcm.googleapis.com/fcm/send/abc',
    'https://user:pass@fcm.googleapis.com/fcm/send/abc',
    'https://fcm.googleapis.com:8443/fcm/send/abc', // an allowed host, on another port than the push service's
    'https://fcm.googleapis.com:80/fcm/send/abc',
    'https://web.push.apple.com:22/x',
    // Hosts that end in an allowed suffix for the WHATWG parser, but that web-push's url.parse cuts short:
    'https://10.0.0.5;.push.apple.com/x', // → 10.0.0.5
    "https://evil.example'.push.apple.com/x", // → evil.example
    'https://metadata%2e.push.apple.com/x', // → metadata
    'not a url',
  ])('refuses in production: %s', (url) => {
    expect(isAllowedPushEndpoint(url, production)).toBe(false);
  });

  it('accepts any https endpoint in development, and nothing else', () => {
    expect(isAllowedPushEndpoint('https://127.0.0.1:8443/push/a', development)).toBe(true);
    expect(isAllowedPushEndpoint('https://localhost/push', development)).toBe(true);
    expect(isAllowedPushEndpoint('http://localhost/push', development)).toBe(false);
    expect(isAllowedPushEndpoint('ftp://localhost/push', development)).toBe(false);
  });

  it('uses the configured hosts instead of the default list', () => {
    const policy = { production: true, allowedHosts: ['push.example.net', '*.push.example.org'] };
    expect(isAllowedPushEndpoint('https://push.example.net/a', policy)).toBe(true);
    expect(isAllowedPushEndpoint('https://eu.push.example.org/a', policy)).toBe(true);
    expect(isAllowedPushEndpoint('https://fcm.googleapis.com/fcm/send/a', policy)).toBe(false);
  });
});

describe('push subscription storage', () => {
  const alicePhone = { tenant: 'acme', sub: 'alice', deviceId: 'dev_phone' };
  const aliceLaptop = { tenant: 'acme', sub: 'alice', deviceId: 'dev_laptop' };

  async function storeWithDevices() {
    const store = new MemoryStore();
    await store.setAdd(keys.userDevices('acme', 'alice'), 'dev_phone');
    await store.setAdd(keys.userDevices('acme', 'alice'), 'dev_laptop');
    return store;
  }

  it('lists the subscriptions of every device of the user', async () => {
    const store = await storeWithDevices();
    await savePushSubscription(store, alicePhone, subscription('https://push.test/1'));
    await savePushSubscription(store, aliceLaptop, subscription('https://push.test/2'));
    await savePushSubscription(store, { tenant: 'other', sub: 'alice', deviceId: 'dev_phone' }, subscription('https://push.test/3'));

    const listed = await listPushSubscriptions(store, 'acme', 'alice');
    expect(listed.map(({ deviceId, subscription: s }) => `${deviceId} ${s.endpoint}`).sort()).toEqual(['dev_laptop https://push.test/2', 'dev_phone https://push.test/1']);
  });

  it('replaces a subscription with the same endpoint', async () => {
    const store = await storeWithDevices();
    await savePushSubscription(store, alicePhone, subscription('https://push.test/1'));
    const renewed = { ...subscription('https://push.test/1'), keys: { p256dh: `B${'C'.repeat(86)}`, auth: 'C'.repeat(22) } };
    await savePushSubscription(store, alicePhone, renewed);
    expect(await listPushSubscriptions(store, 'acme', 'alice')).toEqual([{ deviceId: 'dev_phone', subscription: renewed }]);
  });

  it('deletes one subscription and nothing else', async () => {
    const store = await storeWithDevices();
    await savePushSubscription(store, alicePhone, subscription('https://push.test/1'));
    await savePushSubscription(store, alicePhone, subscription('https://push.test/2'));
    await savePushSubscription(store, aliceLaptop, subscription('https://push.test/1'));

    expect(await deletePushSubscription(store, alicePhone, 'https://push.test/1')).toBe(true);
    expect(await deletePushSubscription(store, alicePhone, 'https://push.test/1')).toBe(false);
    const listed = await listPushSubscriptions(store, 'acme', 'alice');
    expect(listed.map(({ deviceId, subscription: s }) => `${deviceId} ${s.endpoint}`).sort()).toEqual(['dev_laptop https://push.test/1', 'dev_phone https://push.test/2']);
  });

  it(`refuses a new endpoint past ${MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE} per device but still renews a known one`, async () => {
    const store = await storeWithDevices();
    for (let i = 0; i < MAX_PUSH_SUBSCRIPTIONS_PER_DEVICE; i += 1) {
      expect(await savePushSubscription(store, alicePhone, subscription(`https://push.test/${i}`))).toEqual({ saved: true });
    }
    expect(await savePushSubscription(store, alicePhone, subscription('https://push.test/new'))).toEqual({
      saved: false,
      reason: 'too_many_subscriptions',
    });
    expect(await savePushSubscription(store, alicePhone, subscription('https://push.test/0'))).toEqual({ saved: true });
  });

  it('skips a stored value that is not a subscription', async () => {
    const store = await storeWithDevices();
    await savePushSubscription(store, alicePhone, subscription('https://push.test/1'));
    await store.hashSet(keys.devicePush('acme', 'alice', 'dev_phone'), { 'https://push.test/bad': '{not json' });
    expect((await listPushSubscriptions(store, 'acme', 'alice')).map(({ subscription: s }) => s.endpoint)).toEqual(['https://push.test/1']);
  });
});
