/**
 * Web Push round trip: the real notifier and sender, through web-push, to a local
 * HTTPS push receiver with a throwaway CA. The receiver decrypts like a browser (RFC 8291) and
 * checks the VAPID JWT (RFC 8292) and the RFC 8030 headers. No Redis: the in-memory store.
 */
import { importJWK, jwtVerify } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createPushNotifier, createWebPushSender, DEV_VAPID_SUBJECT, listPushSubscriptions, loadVapidKeys, MAX_PUSH_PAYLOAD_BYTES, savePushSubscription, topicFor, type LoadedVapidKeys, type PushNotifier } from '../server/src/push/index.ts';
import { keys, MemoryStore } from '../server/src/store/index.ts';
import { browserSubscription, decrypt, startPushReceiver, type BrowserSubscription, type PushReceiver, type ReceivedPush } from './support/push-receiver.ts';

const TENANT = 'acme';
const SUB = 'alice';

async function verifyVapid(push: ReceivedPush, receiver: PushReceiver, vapid: LoadedVapidKeys) {
  const match = /^vapid t=([A-Za-z0-9_.-]+), k=([A-Za-z0-9_-]+)$/.exec(push.headers.authorization ?? '');
  expect(match, 'Authorization: vapid t=…, k=…').not.toBeNull();
  const [, token = '', k = ''] = match ?? [];
  expect(k).toBe(vapid.publicKey);
  const point = Buffer.from(k, 'base64url');
  const key = await importJWK({ kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') }, 'ES256');
  const { payload } = await jwtVerify(token, key, { algorithms: ['ES256'], audience: receiver.origin, subject: vapid.subject });
  const now = Math.floor(Date.now() / 1000);
  expect(payload.exp).toBeGreaterThan(now);
  expect(payload.exp).toBeLessThanOrEqual(now + 24 * 60 * 60); // RFC 8292 §2: at most 24 hours
  return payload;
}

describe('Web Push to a local push service', () => {
  let receiver: PushReceiver;
  let store: MemoryStore;
  let vapid: LoadedVapidKeys;
  let notifier: PushNotifier;

  beforeAll(async () => {
    receiver = await startPushReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
  });
  beforeEach(async () => {
    receiver.received.length = 0;
    store = new MemoryStore();
    vapid = await loadVapidKeys({ store, production: false });
    notifier = createPushNotifier({ store, sender: createWebPushSender({ vapid, agent: receiver.agent, timeoutMs: 5000 }) });
  });

  async function enroll(deviceId: string, path: string, tenant = TENANT, sub = SUB): Promise<BrowserSubscription> {
    const browser = browserSubscription(receiver.endpoint(path));
    await store.setAdd(keys.userDevices(tenant, sub), deviceId);
    expect(await savePushSubscription(store, { tenant, sub, deviceId }, browser.subscription)).toEqual({ saved: true });
    return browser;
  }

  it('delivers an encrypted payload that decrypts to the exact JSON, with a VAPID JWT and the RFC 8030 headers', async () => {
    const phone = await enroll('dev_phone', '/push/phone');
    const summary = '€490.00 to ACME Ltd (acct_77): Refund for order 1042';

    const result = await notifier.notifyUser({ tenant: TENANT, sub: SUB, auth_req_id: 'req_1042', summary, ttlSeconds: 287 });

    expect(result).toEqual({ sent: 1, removed: 0, failed: 0 });
    expect(receiver.received).toHaveLength(1);
    const [push] = receiver.received as [ReceivedPush];
    expect(push.path).toBe('/push/phone');
    expect(push.headers['content-encoding']).toBe('aes128gcm');
    expect(push.headers.ttl).toBe('287');
    expect(push.headers.urgency).toBe('high');
    expect(push.headers.topic).toBe(topicFor('req_1042'));
    expect(decrypt(push, phone).toString('utf8')).toBe(JSON.stringify({ kind: 'approval_request', auth_req_id: 'req_1042', summary }));

    const claims = await verifyVapid(push, receiver, vapid);
    expect(claims.sub).toBe(DEV_VAPID_SUBJECT);
    expect(claims.aud).toBe(receiver.origin);
  });

  it('signs the VAPID JWT once per push service and renews it an hour before it expires', async () => {
    let now = Date.now();
    const sender = createWebPushSender({ vapid, agent: receiver.agent, timeoutMs: 5000, now: () => now });
    const phone = browserSubscription(receiver.endpoint('/push/a'));
    const tablet = browserSubscription(receiver.endpoint('/push/b'));
    const options = { ttlSeconds: 60, urgency: 'high' as const };
    await sender.send(phone.subscription, 'one', options);
    await sender.send(tablet.subscription, 'two', options);
    now += 11 * 3600 * 1000 + 1;
    await sender.send(phone.subscription, 'three', options);
    const [first, second, third] = receiver.received.map((push) => push.headers.authorization);
    expect(second).toBe(first);
    expect(third).not.toBe(first);
    const renewed = await verifyVapid(receiver.received[2]!, receiver, vapid);
    expect(renewed.exp).toBe(Math.floor(now / 1000) + 12 * 3600);
  });

  it('keeps a 5,000-character multi-byte purpose within 2048 bytes of plaintext', async () => {
    const phone = await enroll('dev_phone', '/push/phone');
    const purpose = 'Rückerstattung für Bestellung 1042 — 返金 😀👩‍👩‍👧 '.repeat(200).slice(0, 5000);
    expect(purpose.length).toBe(5000);

    const result = await notifier.notifyUser({ tenant: TENANT, sub: SUB, auth_req_id: 'req_long', summary: `€490.00 to ACME Ltd: ${purpose}`, ttlSeconds: 300 });

    expect(result).toEqual({ sent: 1, removed: 0, failed: 0 });
    const plaintext = decrypt(receiver.received[0] as ReceivedPush, phone);
    expect(plaintext.length).toBeLessThanOrEqual(MAX_PUSH_PAYLOAD_BYTES);
    const text = plaintext.toString('utf8');
    expect(Buffer.from(text, 'utf8').equals(plaintext), 'well-formed UTF-8').toBe(true);
    const payload = JSON.parse(text) as { kind: string; auth_req_id: string; summary: string };
    expect(payload.kind).toBe('approval_request');
    expect(payload.auth_req_id).toBe('req_long');
    expect(payload.summary.endsWith('…')).toBe(true);
    expect(`€490.00 to ACME Ltd: ${purpose}`.startsWith(payload.summary.slice(0, -1))).toBe(true);
  });

  it('deletes exactly the subscription answered 410 and keeps every other one', async () => {
    const laptop = await enroll('dev_laptop', '/push/gone');
    await savePushSubscription(store, { tenant: TENANT, sub: SUB, deviceId: 'dev_laptop' }, browserSubscription(receiver.endpoint('/push/laptop-2')).subscription);
    await enroll('dev_phone', '/push/phone');
    receiver.answer('/push/gone', 410);

    const result = await notifier.notifyUser({ tenant: TENANT, sub: SUB, auth_req_id: 'req_2', summary: 'x', ttlSeconds: 60 });

    expect(result).toEqual({ sent: 2, removed: 1, failed: 0 });
    expect(receiver.received.map((push) => push.path).sort()).toEqual(['/push/gone', '/push/laptop-2', '/push/phone']);
    const left = await listPushSubscriptions(store, TENANT, SUB);
    expect(left.map(({ deviceId, subscription }) => `${deviceId} ${new URL(subscription.endpoint).pathname}`).sort()).toEqual(['dev_laptop /push/laptop-2', 'dev_phone /push/phone']);
    expect(left.some(({ subscription }) => subscription.endpoint === laptop.subscription.endpoint)).toBe(false);
  });

  it('deletes on 404 too, but keeps a subscription the push service refused otherwise', async () => {
    await enroll('dev_a', '/push/expired');
    await enroll('dev_b', '/push/busy');
    receiver.answer('/push/expired', 404);
    receiver.answer('/push/busy', 503);

    const result = await notifier.notifyUser({ tenant: TENANT, sub: SUB, auth_req_id: 'req_3', summary: 'x', ttlSeconds: 60 });

    expect(result).toEqual({ sent: 0, removed: 1, failed: 1 });
    const left = await listPushSubscriptions(store, TENANT, SUB);
    expect(left.map(({ deviceId }) => deviceId)).toEqual(['dev_b']);
  });

  it('pushes only to the user in the tenant asked for', async () => {
    await enroll('dev_1', '/push/acme-alice');
    await enroll('dev_2', '/push/other-alice', 'other', SUB);
    await enroll('dev_3', '/push/acme-bob', TENANT, 'bob');

    const result = await notifier.notifyUser({ tenant: TENANT, sub: SUB, auth_req_id: 'req_4', summary: 'x', ttlSeconds: 60 });

    expect(result).toEqual({ sent: 1, removed: 0, failed: 0 });
    expect(receiver.received.map((push) => push.path)).toEqual(['/push/acme-alice']);
  });

  it('sends nothing for a request with no time left', async () => {
    await enroll('dev_phone', '/push/phone');

    const result = await notifier.notifyUser({ tenant: TENANT, sub: SUB, auth_req_id: 'req_5', summary: 'x', ttlSeconds: 0.4 });

    expect(result).toEqual({ sent: 0, removed: 0, failed: 0 });
    expect(receiver.received).toHaveLength(0);
  });

  it('reports an unreachable push service as failed without throwing', async () => {
    const closed = await startPushReceiver();
    const origin = closed.origin;
    await closed.close();
    const browser = browserSubscription(`${origin}/push/nobody`);
    const sender = createWebPushSender({ vapid, agent: receiver.agent, timeoutMs: 2000 });

    const result = await sender.send(browser.subscription, '{}', { ttlSeconds: 60, urgency: 'high' });

    expect(result).toEqual({ status: 'failed', reason: 'ECONNREFUSED' });
  });

  it('refuses a push service whose certificate it does not trust', async () => {
    const phone = await enroll('dev_phone', '/push/phone');
    const untrusting = createWebPushSender({ vapid });

    const result = await untrusting.send(phone.subscription, '{}', { ttlSeconds: 60, urgency: 'high' });

    expect(result.status).toBe('failed');
    expect(receiver.received).toHaveLength(0);
  });
});
