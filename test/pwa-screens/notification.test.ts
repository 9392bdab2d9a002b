import type { PushSubscriptionJSON } from '@countersign/shared';
import { createECDH, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { appServiceWorker, deliverPushUntilShown, useChromium, VIEWPORTS, waitForServiceWorker, type ViewportName } from '../support/pwa-browser.ts';
import { poll, useScreens } from './support.ts';

/** What test code running in the service worker uses of its global scope. */
type WorkerScope = { registration: ServiceWorkerRegistration };

// A clicked notification opens its request; a request's screen follows the dark colour scheme and
// reduced motion.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const ui = useScreens(chromium, viewport);
  const { ask, check, sent } = ui;

  it('opens the request of a clicked notification', async () => {
    const { page, origin, app } = ui;
    // The subscription the PWA would have sent had headless Chromium given it one (STACK.md).
    const subscription: PushSubscriptionJSON = {
      endpoint: `https://push.example.test/send/${viewport}`,
      expirationTime: null,
      keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
    };
    await page.goto(`${origin}/#/`);
    await page.getByTestId('inbox').waitFor();
    const stored = await page.evaluate(async (body) => (await fetch('/api/device/push-subscription', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status, subscription);
    expect(stored).toBe(204);

    const asked = await ask(undefined, { binding_message: 'Order 1042' });
    await expect.poll(() => sent.filter((push) => push.endpoint === subscription.endpoint && push.payload.includes(asked.auth_req_id)).length, poll).toBe(1);
    const push = sent.find((message) => message.payload.includes(asked.auth_req_id))!;
    await expect.poll(() => app.registrations.get(`${origin}/`), poll).toBeTypeOf('string');
    await waitForServiceWorker(page);
    const worker = await appServiceWorker(app.context, origin);
    const shown = () => worker.evaluate(async (tag) => (await (self as unknown as WorkerScope).registration.getNotifications({ tag })).map((notification: Notification) => ({ title: notification.title, body: notification.body, tag: notification.tag })), asked.auth_req_id);
    await deliverPushUntilShown(app.cdp, { origin, registrationId: app.registrations.get(`${origin}/`)!, data: push.payload }, async () => (await shown()).length > 0);
    await expect.poll(shown, poll).toEqual([{ title: 'Approval requested', body: expect.stringContaining('EUR 490.00 to ACME Ltd'), tag: asked.auth_req_id }]);

    // Headless Chromium has no notification to click: the worker's own click handler is called
    // with the notification it showed (`notificationclick` calls the same function).
    await worker.evaluate(async (tag) => {
      const [notification] = await (self as unknown as WorkerScope).registration.getNotifications({ tag });
      await (self as unknown as { __countersign: { notificationClicked(n: Notification): Promise<void> } }).__countersign.notificationClicked(notification!);
    }, asked.auth_req_id);
    await page.waitForURL(`${origin}/#/requests/${asked.auth_req_id}`);
    await expect.poll(() => page.getByTestId('request-screen').getAttribute('data-auth-req-id'), poll).toBe(asked.auth_req_id);
    await expect.poll(shown, poll).toEqual([]);
    await check('notification-opened');
  });

  it('follows the dark colour scheme and reduced motion', async () => {
    const { page } = ui;
    // A request open, as a clicked notification leaves it.
    await ui.openAsked(undefined, { binding_message: 'Order 1042' });
    const button = page.getByTestId('deny');
    expect(await button.evaluate((element) => getComputedStyle(element).transitionDuration)).not.toBe('0s');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(11, 17, 32)');
    expect(await button.evaluate((element) => getComputedStyle(element).transitionDuration)).toBe('0s');
    await check('request-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(246, 247, 249)');
  });
});
