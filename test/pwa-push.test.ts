import { keys } from '@countersign/server';
import { createECDH, randomBytes } from 'node:crypto';
import type { Browser, Worker } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { appServiceWorker, deliverPushUntilShown, enrollmentLink, launchChromium, openAppBrowser, STEP_MS, waitForServiceWorker, type AppBrowser } from './support/pwa-browser.ts';

const poll = { timeout: STEP_MS, interval: 50 };

/** What test code running in the service worker uses of its global scope. */
type WorkerScope = { registration: ServiceWorkerRegistration };

/** A subscription as a browser would make it, at a push service of the test's choosing. */
function subscriptionJson(name: string) {
  return {
    endpoint: `https://push.example.test/send/${name}`,
    expirationTime: null,
    keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
  };
}

/** What the worker's hooks answer (see approver-pwa/src/sw.ts). */
type Hooks = {
  pushSubscriptionChanged(change: unknown): Promise<{ status: string; endpoint?: string }>;
};

/**
 * Push renewal in Chromium. Headless Chromium has no push service (STACK.md): the browser's
 * `PushManager` is stood in for, in the page and in the worker, by one that records the
 * `applicationServerKey` it is asked for and hands out a made-up subscription. Everything else is
 * real: the page's and the worker's calls to the device API, with the session cookie and `Origin`.
 */
describe('the push subscription is renewed', () => {
  const sub = 'paula';
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;
  let worker: Worker;
  let deviceId: string;

  /** The endpoints the server holds for the device. */
  const storedEndpoints = async () => Object.keys((await harness.store.hashGet(keys.devicePush('default', sub, deviceId))) ?? {}).sort();

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, 'phone');
    // The page's push manager: no subscription yet; `subscribe` records the key and answers a made-up one.
    await app.context.addInitScript((json) => {
      const recorded: string[] = [];
      (window as unknown as { subscribedWith: string[] }).subscribedWith = recorded;
      PushManager.prototype.getSubscription = async () => null;
      PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
        const key = new Uint8Array(options!.applicationServerKey as ArrayBuffer);
        recorded.push(
          btoa(String.fromCharCode(...key))
            .replace(/\+/g, '-')
            .replace(/\//g, '_')
            .replace(/=+$/, ''),
        );
        return { endpoint: json.endpoint, options: { applicationServerKey: key.buffer, userVisibleOnly: true }, toJSON: () => json } as unknown as PushSubscription;
      };
    }, subscriptionJson('page'));
    await app.page.goto(await enrollmentLink(harness, sub, 'Paula Push'));
    await app.page.getByTestId('enroll-button').click();
    await app.page.getByTestId('inbox').waitFor();
    await waitForServiceWorker(app.page);
    worker = await appServiceWorker(app.context, origin);
    deviceId = await app.page.evaluate(async () => ((await (await fetch('/api/device/me')).json()) as { device: { device_id: string } }).device.device_id);
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it("on every launch, with the server's VAPID key, where notifications are allowed", async () => {
    const puts: number[] = [];
    app.page.on('response', (response) => {
      if (response.request().method() === 'PUT' && new URL(response.url()).pathname === '/api/device/push-subscription') puts.push(response.status());
    });
    await app.page.reload();
    await app.page.getByTestId('notifications-on').waitFor();
    await app.page.reload();
    await app.page.getByTestId('notifications-on').waitFor();
    await expect.poll(() => puts, poll).toEqual([204, 204]);
    expect(await app.page.evaluate(() => (window as unknown as { subscribedWith: string[] }).subscribedWith)).toEqual([harness.deps.vapidPublicKey]);
    expect(await storedEndpoints()).toContain('https://push.example.test/send/page');
  });

  it('from the worker on pushsubscriptionchange, with the subscription the event brings', async () => {
    const fresh = subscriptionJson('from-event');
    const result = await worker.evaluate((json) => (self as unknown as { __countersign: Hooks }).__countersign.pushSubscriptionChanged({ oldSubscription: null, newSubscription: { toJSON: () => json } }), fresh);
    // The worker's PUT carried the session cookie and `Origin: PUBLIC_URL`, or the server would have refused it.
    expect(result).toEqual({ status: 'renewed', endpoint: fresh.endpoint });
    expect(await storedEndpoints()).toContain(fresh.endpoint);
  });

  it("from the worker on pushsubscriptionchange without a new subscription: it subscribes with the server's current key", async () => {
    const fresh = subscriptionJson('resubscribed');
    const { result, key } = await worker.evaluate(async (json) => {
      let asked = '';
      PushManager.prototype.subscribe = async function subscribe(options?: PushSubscriptionOptionsInit) {
        asked = btoa(String.fromCharCode(...new Uint8Array(options!.applicationServerKey as ArrayBuffer)))
          .replace(/\+/g, '-')
          .replace(/\//g, '_')
          .replace(/=+$/, '');
        return { toJSON: () => json } as unknown as PushSubscription;
      };
      const result = await (self as unknown as { __countersign: Hooks }).__countersign.pushSubscriptionChanged({ oldSubscription: null, newSubscription: null });
      return { result, key: asked };
    }, fresh);
    expect(result).toEqual({ status: 'renewed', endpoint: fresh.endpoint });
    expect(key).toBe(harness.deps.vapidPublicKey);
    expect(await storedEndpoints()).toContain(fresh.endpoint);
  });

  it('does nothing for a browser that is not enrolled', async () => {
    const stranger = await openAppBrowser(browser, origin, 'desktop');
    try {
      await stranger.page.goto(`${origin}/`);
      await stranger.page.getByTestId('not-enrolled').waitFor();
      await waitForServiceWorker(stranger.page);
      const strangerWorker = await appServiceWorker(stranger.context, origin);
      const result = await strangerWorker.evaluate(() => (self as unknown as { __countersign: Hooks }).__countersign.pushSubscriptionChanged({ newSubscription: null }));
      expect(result).toEqual({ status: 'not_enrolled' });
    } finally {
      await stranger.context.close();
    }
  });

  it("replaces a request's notification when it expires", async () => {
    const registrationId = app.registrations.get(`${origin}/`);
    expect(registrationId).toBeTypeOf('string');
    const shown = () => worker.evaluate(async () => (await (self as unknown as WorkerScope).registration.getNotifications({ tag: 'req_expiring_0000000001' })).map((n: Notification) => ({ title: n.title, body: n.body })));
    const deliver = (data: unknown, title: string) => deliverPushUntilShown(app.cdp, { origin, registrationId: registrationId!, data: JSON.stringify(data) }, async () => (await shown()).some((n) => n.title === title));
    await deliver({ kind: 'approval_request', auth_req_id: 'req_expiring_0000000001', summary: 'Support agent: EUR 490.00 to ACME Ltd' }, 'Approval requested');
    await expect.poll(shown, poll).toEqual([{ title: 'Approval requested', body: 'Support agent: EUR 490.00 to ACME Ltd' }]);
    await deliver({ kind: 'request_expired', auth_req_id: 'req_expiring_0000000001', summary: 'EUR 490.00 to ACME Ltd' }, 'Request expired');
    await expect.poll(shown, poll).toEqual([{ title: 'Request expired', body: 'EUR 490.00 to ACME Ltd' }]);
    expect(app.errors).toEqual([]);
  });
});
