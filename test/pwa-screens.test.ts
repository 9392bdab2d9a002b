import { AxeBuilder } from '@axe-core/playwright';
import type { PushSender } from '@countersign/server';
import type { PushSubscriptionJSON } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import type { Browser, ConsoleMessage, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { toolCall } from './support/tool-call.ts';
import { appServiceWorker, deliverPushUntilShown, enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, tabTo, VIEWPORTS, waitForServiceWorker, widthAt360, type AppBrowser, type ViewportName } from './support/pwa-browser.ts';

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

/**
 * What axe-core (WCAG 2.x A/AA and best practices) finds on the page now. It runs with reduced
 * motion, so a colour transition (a hovered button) is never measured half-way; the page's own
 * setting is put back afterwards.
 */
async function axeViolations(page: Page): Promise<Array<{ id: string; nodes: Array<{ target: unknown[] }> }>> {
  const reduced = await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches);
  await page.emulateMedia({ reducedMotion: 'reduce' });
  try {
    return (await new AxeBuilder({ page }).analyze()).violations;
  } finally {
    await page.emulateMedia({ reducedMotion: reduced ? 'reduce' : 'no-preference' });
  }
}

/** One message the server handed to its push sender. */
interface SentPush {
  endpoint: string;
  payload: string;
}

/**
 * Every screen of the approver PWA in headless Chromium, at a phone's and a desktop's viewport,
 * against the real server under the shipped policy: not enrolled, enrollment (from the keyboard),
 * the inbox, a request, deny (from the keyboard), approve, an expired request, a notification
 * click opening its request, number matching (a code picked from the keyboard) and the "this
 * wasn't me" confirmation, a finance reviewer's view and the customer waiting for it, the history,
 * the devices and an add-device link, the offline screen, and an unknown link. Each screen passes
 * axe-core, fits 360 px and is kept as a screenshot in test/artifacts/.
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

  /** The screen passes axe-core (WCAG 2.x A/AA and best practices), fits 360 px, and a screenshot of it is kept. */
  async function check(name: string, on: Page = page): Promise<void> {
    const violations = await axeViolations(on);
    expect(
      violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`),
      `${name}: axe-core finds nothing`,
    ).toEqual([]);
    const width = await widthAt360(on);
    expect(width.overflowing, `${name}: nothing sticks out at 360 px`).toEqual([]);
    expect(width.scrollWidth).toBeLessThanOrEqual(360);
    await screenshot(on, name, viewport);
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

  it('enrolls from the keyboard alone, with nothing in the browser console', async () => {
    const link = await enrollmentLink(harness, sub, 'Alice Martin');
    // A fresh browser, as a new user's is: only the enrollment page, from the start.
    await page.goto('about:blank');
    const logged: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      // The test's browser context is off the record, where Chromium says it has no Push API (the
      // inbox, once enrolled, asks for push): a fact of the test set-up, not of the app.
      if (message.text().includes('does not support the Push API in incognito mode')) return;
      if (message.type() === 'error' || message.type() === 'warning') logged.push(`${message.type()}: ${message.text()} (${message.location().url})`);
    };
    page.on('console', onConsole);
    await page.goto(link);
    await page.locator('[data-testid="enroll-screen"][data-link="valid"]').waitFor();
    await check('enroll');
    const path = await tabTo(page, 'enroll-button');
    expect(path).toContain('device-name');
    await page.keyboard.press('Enter');
    await page.getByTestId('inbox-empty').waitFor();
    page.off('console', onConsole);
    expect(logged).toEqual([]);
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
    // One notation only: the code form, never the symbol form beside it.
    const text = await screen.innerText();
    expect(text).not.toContain('€');
    // Once large, besides the server's headline (`Pay EUR 999.99 to …`).
    expect(text.match(/EUR 999\.99/g)).toHaveLength(2);
    expect(await screen.getByTestId('request-title').textContent()).toContain('EUR 999.99');
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
    // The server's verb for the action, not a word of the app's own.
    expect(await page.getByTestId('approve').textContent()).toBe('Pay');
    // An agent's request is not a test.
    expect(await page.getByTestId('test-badge').count()).toBe(0);
    await page.getByTestId('approve').click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    await check('approved');
  });

  it('marks a request the console sent as a test, in the inbox and on the request, in both colour schemes', async () => {
    const created = await harness.admin('POST', '/test-requests', { login_hint: sub, sample: 'payment' });
    expect(created.status).toBe(201);
    const id = created.body.auth_req_id as string;
    await page.goto(`${origin}/#/`);
    const item = page.locator(`[data-testid="inbox-item"][data-auth-req-id="${id}"]`);
    await item.waitFor();
    expect(await item.getByTestId('test-badge').textContent()).toBe('Test request');
    await page.goto(`${origin}/#/requests/${id}`);
    await expect.poll(() => page.getByTestId('request-screen').getAttribute('data-auth-req-id'), poll).toBe(id);
    expect(await page.getByTestId('client-name').textContent()).toBe('Countersign console (test)');
    const badge = page.getByTestId('request-screen').getByTestId('test-badge');
    expect(await badge.isVisible()).toBe(true);
    expect(await badge.textContent()).toBe('Test request');
    await check('request-test');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await check('request-test-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    await page.getByTestId('deny').click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
  });

  it('shows a tool call: server, tool, each argument nested, a long string folded with all of it one key press away', async () => {
    const observations = `${'Met at the conference in Lyon, talked about graph databases and the migration plan. '.repeat(6)}Zoë — 東京 ✓`;
    const details = toolCall({
      transaction_id: `mcp_${randomBytes(6).toString('hex')}`,
      annotations: { title: 'Delete Entities', destructiveHint: true },
      arguments: { entityNames: ['Alice', 'Zoë'], options: { cascade: true, ratio: 1.5 }, observations },
    });
    const asked = await ask(details, { binding_message: 'delete_entities' });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    expect(await screen.getByTestId('server').textContent()).toBe('memory');
    expect(await screen.getByTestId('tool').textContent()).toBe('delete_entities (Delete Entities)');
    const args = screen.getByTestId('field-arguments');
    expect(await args.locator('[data-name="entityNames"] li').allTextContents()).toEqual(['Alice', 'Zoë']);
    expect(await args.locator('[data-name="options"] [data-name="ratio"] dd').textContent()).toBe('1.5');
    const folded = args.locator('[data-name="observations"] [data-testid="arg-text"]');
    expect(await folded.textContent()).toMatch(/…$/);
    await check('request-tool-call');
    // The full text: a real button, reached with Tab (before the decision bar) and pressed with Enter.
    const path = await tabTo(page, 'show-all');
    expect(path).not.toContain('approve');
    expect(await page.getByTestId('show-all').getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    expect(await folded.textContent()).toBe(observations);
    expect(await page.getByTestId('show-all').getAttribute('aria-expanded')).toBe('true');
    await check('request-tool-call-expanded');
    await page.getByTestId('approve').click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    const polled = await agent.pollToken(asked.auth_req_id);
    expect(polled.status === 'approved' && polled.token.authorization_details).toEqual(details);
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
    const button = page.getByTestId('deny');
    expect(await button.evaluate((element) => getComputedStyle(element).transitionDuration)).not.toBe('0s');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(11, 17, 32)');
    expect(await button.evaluate((element) => getComputedStyle(element).transitionDuration)).toBe('0s');
    await check('request-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    expect(await page.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe('rgb(246, 247, 249)');
  });

  it('shows number matching: three codes in the server’s order, one picked from the keyboard', async () => {
    const asked = await ask(payment({ transaction_id: `txn_${randomBytes(6).toString('hex')}`, amount_minor: 150_000 }), { binding_message: LONG_BINDING });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    await page.getByTestId('code-buttons').waitFor();
    expect(await focused()).toBe('request-title');
    expect(await page.getByTestId('tier').textContent()).toContain('Elevated');
    // Unscrolled, the message and the three codes are on screen, the message above the sticky bar.
    expect(await page.evaluate(() => window.scrollY)).toBe(0);
    const box = async (testid: string) => (await page.getByTestId(testid).boundingBox())!;
    const [message, bar, codes] = [await box('binding-message'), await box('decision-bar'), await box('code-buttons')];
    const height = VIEWPORTS[viewport].height;
    expect(message.y).toBeGreaterThanOrEqual(0);
    expect(message.y + message.height).toBeLessThanOrEqual(bar.y);
    expect(codes.y).toBeGreaterThanOrEqual(bar.y);
    expect(codes.y + codes.height).toBeLessThanOrEqual(height);
    await check('request-number-matching');

    // "This wasn't me" asks first; Escape leaves everything as it was.
    await page.getByTestId('report').click();
    await page.getByTestId('report-dialog').waitFor();
    expect(await focused()).toBe('report-dialog-cancel');
    await check('report-dialog');
    await page.keyboard.press('Escape');
    await expect.poll(() => page.getByTestId('report-dialog').count(), poll).toBe(0);

    const path = await tabTo(page, `code-${asked.binding_code}`);
    expect(path.indexOf('approve')).toBe(-1);
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    expect((await agent.pollToken(asked.auth_req_id)).status).toBe('approved');
  });

  it('shows a finance reviewer the action, the tier and that the customer approved; the customer waits for the reviewer', async () => {
    const reviewerSub = `rita-${viewport}`;
    const reviewer = await openAppBrowser(browser, origin, viewport);
    try {
      await reviewer.page.goto(await enrollmentLink(harness, reviewerSub, 'Rita Reviewer'));
      await harness.admin('PUT', `/users/${reviewerSub}/roles`, { roles: ['reviewer:finance'] });
      await reviewer.page.getByTestId('enroll-button').click();
      await reviewer.page.getByTestId('inbox').waitFor();

      const asked = await ask(payment({ transaction_id: `txn_${randomBytes(6).toString('hex')}`, amount_minor: 1_200_000 }), { binding_message: 'Order 3001' });
      await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
      await page.getByTestId(`code-${asked.binding_code}`).click();
      await page.locator('[data-testid="result"][data-result="waiting"]').waitFor();
      await check('request-waiting');

      await reviewer.page.goto(`${origin}/#/`);
      await reviewer.page.locator(`[data-testid="inbox-item"][data-auth-req-id="${asked.auth_req_id}"]`).waitFor();
      expect(await reviewer.page.locator(`[data-testid="inbox-item"][data-auth-req-id="${asked.auth_req_id}"] .inbox-item-code`).textContent()).toBe('Customer’s message: Order 3001');
      await check('inbox-reviewer', reviewer.page);
      await reviewer.page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
      await reviewer.page.getByTestId('reviewer-note').waitFor();
      expect(await reviewer.page.getByTestId('tier').textContent()).toContain('High risk · needs a finance reviewer');
      expect(await reviewer.page.locator('[data-testid="approval"][data-party="customer"]').getAttribute('data-status')).toBe('approved');
      expect(await reviewer.page.getByTestId('report').count()).toBe(0);
      // The message is shown where the customer asked; the reviewer is not asked to compare it.
      const shown = await reviewer.page.getByTestId('request-screen').innerText();
      expect(shown).not.toMatch(/matches|If it is not the same/);
      expect(await reviewer.page.getByTestId('reviewer-binding').textContent()).toBe('The customer checks this message against what the agent showed them: Order 3001. You don’t need to.');
      await check('request-reviewer', reviewer.page);
      expect(reviewer.errors).toEqual([]);
    } finally {
      await reviewer.context.close();
    }
  });

  it('shows the history, in both colour schemes', async () => {
    await page.goto(`${origin}/#/history`);
    await expect.poll(() => page.getByTestId('history-item').count(), poll).toBeGreaterThanOrEqual(3);
    expect(await focused()).toBe('h1');
    await check('history');
    // Reduced motion: no colour transition half-way through while axe measures the contrast.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await check('history-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  it('shows the devices and a link to add another', async () => {
    await page.goto(`${origin}/#/devices`);
    await page.getByTestId('device-item').waitFor();
    await check('devices');
    await tabTo(page, 'add-device');
    await page.keyboard.press('Enter');
    await page.getByTestId('enrollment').waitFor();
    expect(await focused()).toBe('enrollment-link');
    await check('devices-add');
    // Reduced motion: no colour transition half-way through while axe measures the contrast.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await check('devices-add-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  it('says plainly that it is offline', async () => {
    await app.context.setOffline(true);
    try {
      await page.reload();
      await page.locator('[data-testid="load-error"][data-offline]').waitFor();
      await page.getByTestId('offline-banner').waitFor();
      await check('offline');
    } finally {
      await app.context.setOffline(false);
    }
    await page.getByTestId('devices-screen').waitFor();
  });

  it('says when a link leads nowhere', async () => {
    await page.goto(`${origin}/#/no/such/page`);
    await page.getByTestId('not-found').waitFor();
    await check('not-found');
    expect(app.errors).toEqual([]);
  });
});
