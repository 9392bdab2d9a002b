import type { PushSender } from '@countersign/server';
import { createAgentClient, type AgentClient, type PushSubscriptionJSON } from '@countersign/shared';
import { createECDH, randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import {
  appServiceWorker,
  enrollmentLink,
  launchChromium,
  openAppBrowser,
  screenshot,
  STEP_MS,
  tabTo,
  VIEWPORTS,
  waitForServiceWorker,
  widthAt360,
  type AppBrowser,
  type ViewportName,
} from './support/pwa-browser.ts';

const poll = { timeout: STEP_MS, interval: 50 };

/** What test code running in the service worker uses of its global scope. */
type WorkerScope = { registration: ServiceWorkerRegistration };

/**
 * A request whose every text is long, to show that nothing overflows a narrow phone. The amount
 * stays under EUR 1,000.00, the default policy's `standard` tier (no number matching yet).
 */
const LONG_PAYMENT = payment({
  amount_minor: 99999,
  payee: { id: 'acct_77000000000000000000000000000000000000000000000000000000000', name: 'ACME Logistics and Warehousing International Holdings (Rotterdam) B.V.' },
  purpose: 'Refund-for-order-1042-shipment-77-of-80-warehouse-Rotterdam-NL-returned-damaged-goods and a second sentence to wrap.',
});
const LONG_BINDING = 'Order 1042 for ACME Ltd, shipment 77 of 80, batch A-B-C-D-E-F-G';

/** One message the server handed to its push sender. */
interface SentPush {
  endpoint: string;
  payload: string;
}

/**
 * Every screen of the approver PWA in headless Chromium, at a phone's and a desktop's viewport,
 * against the real server: not enrolled, enrollment (from the keyboard), the inbox, a request,
 * deny (from the keyboard), approve, an expired request, a notification click opening its
 * request, and an unknown link. Each screen is checked to fit 360 px and kept as a screenshot in
 * test/artifacts/. (The axe-core check waits for @axe-core/playwright.)
 */
describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const sub = `alice-${viewport}`;
  const sent: SentPush[] = [];
  const pushSender: PushSender = {
    async send(subscription, payload) {
      sent.push({ endpoint: subscription.endpoint, payload });
      return { status: 'sent', statusCode: 201 };
    },
  };
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;
  let page: Page;
  let agent: AgentClient;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin, pushSender });
    await harness.listen(port);
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: origin, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, viewport);
    page = app.page;
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /** What has the focus: its test id, or its tag. */
  const focused = () => page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? document.activeElement?.tagName.toLowerCase());

  /** The screen fits 360 px, and a screenshot of it is kept. */
  async function check(name: string): Promise<void> {
    const width = await widthAt360(page);
    expect(width.overflowing, `${name}: nothing sticks out at 360 px`).toEqual([]);
    expect(width.scrollWidth).toBeLessThanOrEqual(360);
    await screenshot(page, name, viewport);
  }

  async function ask(details = payment({ transaction_id: `txn_${randomBytes(6).toString('hex')}` }), extra: { binding_message?: string; requested_expiry?: number } = {}) {
    return agent.requestApproval({ login_hint: sub, authorization_details: details, ...extra });
  }

  it('tells a browser that is not enrolled how to get in', async () => {
    await page.goto(`${origin}/`);
    await page.getByTestId('not-enrolled').waitFor();
    expect(await focused()).toBe('h1');
    await check('not-enrolled');
  });

  it('enrolls from the keyboard alone', async () => {
    await page.goto(await enrollmentLink(harness, sub, 'Alice Martin'));
    await page.locator('[data-testid="enroll-screen"][data-link="valid"]').waitFor();
    await check('enroll');
    const path = await tabTo(page, 'enroll-button');
    expect(path).toContain('device-name');
    await page.keyboard.press('Enter');
    await page.getByTestId('inbox-empty').waitFor();
    expect(await page.getByTestId('flash').textContent()).toContain('Alice Martin');
    await check('inbox-empty');
    await waitForServiceWorker(page);
  });

  it('shows a new request in the inbox and opens it from the keyboard, with the focus on its title', async () => {
    const asked = await ask(LONG_PAYMENT, { binding_message: LONG_BINDING });
    const item = page.locator(`[data-testid="inbox-item"][data-auth-req-id="${asked.auth_req_id}"]`);
    await item.waitFor();
    await check('inbox');
    await tabTo(page, 'inbox-item');
    await page.keyboard.press('Enter');
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    // Approve is never focused by default: Enter on arrival must not approve.
    expect(await focused()).toBe('request-title');
    expect(await screen.getByTestId('amount').textContent()).toBe('EUR 999.99');
    await check('request');
  });

  it('reaches Deny before Approve from the keyboard, and denies', async () => {
    const path = await tabTo(page, 'approve');
    expect(path.indexOf('deny')).toBeGreaterThanOrEqual(0);
    expect(path.indexOf('deny')).toBeLessThan(path.indexOf('approve'));
    // The focused button shows where the focus is.
    expect(await page.getByTestId('approve').evaluate((button) => getComputedStyle(button).outlineStyle)).toBe('solid');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('deny');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    const id = await page.getByTestId('request-screen').getAttribute('data-auth-req-id');
    expect(await agent.pollToken(id!)).toEqual({ status: 'denied' });
    await check('denied');
  });

  it('approves with the passkey', async () => {
    const asked = await ask(undefined, { binding_message: 'Order 1042' });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    await expect.poll(() => page.getByTestId('request-screen').getAttribute('data-state'), poll).toBe('pending');
    await page.getByTestId('approve').click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    await check('approved');
  });

  it('shows an expired request as expired, with nothing to press', async () => {
    const asked = await ask(undefined, { requested_expiry: 60 });
    harness.clock.advance(61);
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    await page.locator('[data-testid="result"][data-result="expired"]').waitFor();
    expect(await page.getByTestId('decision-bar').count()).toBe(0);
    expect(await page.getByTestId('result-headline').textContent()).toContain('Expired');
    await check('expired');
  });

  it('opens the request of a clicked notification', async () => {
    // The subscription the PWA would have sent had headless Chromium given it one (STACK.md).
    const subscription: PushSubscriptionJSON = {
      endpoint: `https://push.example.test/send/${viewport}`,
      expirationTime: null,
      keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
    };
    await page.goto(`${origin}/#/`);
    await page.getByTestId('inbox').waitFor();
    const stored = await page.evaluate(
      async (body) => (await fetch('/api/device/push-subscription', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
      subscription,
    );
    expect(stored).toBe(204);

    const asked = await ask(undefined, { binding_message: 'Order 1042' });
    await expect.poll(() => sent.filter((push) => push.endpoint === subscription.endpoint && push.payload.includes(asked.auth_req_id)).length, poll).toBe(1);
    const push = sent.find((message) => message.payload.includes(asked.auth_req_id))!;
    await expect.poll(() => app.registrations.get(`${origin}/`), poll).toBeTypeOf('string');
    await app.cdp.send('ServiceWorker.deliverPushMessage', { origin, registrationId: app.registrations.get(`${origin}/`)!, data: push.payload });

    const worker = await appServiceWorker(app.context, origin);
    const shown = () =>
      worker.evaluate(async (tag) => (await (self as unknown as WorkerScope).registration.getNotifications({ tag })).map((notification: Notification) => ({ title: notification.title, body: notification.body, tag: notification.tag })), asked.auth_req_id);
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
    const button = page.getByTestId('deny');
    expect(await button.evaluate((element) => getComputedStyle(element).transitionDuration)).not.toBe('0s');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(11, 17, 32)');
    expect(await button.evaluate((element) => getComputedStyle(element).transitionDuration)).toBe('0s');
    await check('request-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(246, 247, 249)');
  });

  it('says when a link leads nowhere', async () => {
    await page.goto(`${origin}/#/no/such/page`);
    await page.getByTestId('not-found').waitFor();
    await check('not-found');
    expect(app.errors).toEqual([]);
  });
});
