import type { PushSender } from '@countersign/server';
import { CountersignError, type PushSubscriptionJSON } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { deliverPushUntilShown } from './support/pwa-browser.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SCREENSHOT = `${ROOT}test/artifacts/approval.png`;
/** The README shows this one: the whole approval screen at a phone's width (~140 KB), Approve included. */
const README_SCREENSHOT = `${ROOT}docs/screenshots/approval.png`;

/** How long one step may wait for the page or the server before the test fails with its message. */
const STEP_MS = 10_000;
const poll = { timeout: STEP_MS, interval: 50 };

/** One message the server handed to its push sender. */
interface SentPush {
  endpoint: string;
  payload: string;
  ttlSeconds: number;
  urgency: string;
}

/**
 * The whole approval story in headless Chromium at a phone viewport, against the real server on a
 * socket: enrollment with a passkey (CDP virtual authenticator), an agent's payment request, the
 * service worker's notification for the server's push message (delivered over CDP), the request
 * on the phone, Approve, and the agent's token, redemption and outcome coming back to the phone.
 */
describe('the approver PWA in a phone browser', () => {
  const sent: SentPush[] = [];
  /** Chromium refuses `pushManager.subscribe` in a fresh context ("no Push API in incognito") and
   * has no push service offline (STACK.md "Web Push"), so the server sends to a stand-in
   * subscription, and the test hands the message it captured here to the service worker over CDP. */
  const pushSender: PushSender = {
    async send(subscription, payload, options) {
      sent.push({ endpoint: subscription.endpoint, payload, ttlSeconds: options.ttlSeconds, urgency: options.urgency });
      return { status: 'sent', statusCode: 201 };
    },
  };
  const pageErrors: Error[] = [];
  let origin: string;
  let harness: Harness | undefined;
  let browser: Browser | undefined;
  let page: Page;
  let cdp: CDPSession;
  let authenticatorId: string;
  /** Service worker registrations by scope URL, as CDP reports them. */
  const registrations = new Map<string, string>();

  beforeAll(async () => {
    const port = await freePort();
    // `localhost`, never 127.0.0.1: browsers refuse an IP address as the WebAuthn RP ID.
    origin = `http://localhost:${port}`;
    harness = await createHarness({ store: 'redis', publicUrl: origin, pushSender });
    await harness.listen(port);

    browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const chromeMajor = browser.version().split('.')[0];
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 2,
      isMobile: true,
      hasTouch: true,
      userAgent: `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chromeMajor}.0.0.0 Mobile Safari/537.36`,
      colorScheme: 'light',
      locale: 'en-GB',
    });
    context.setDefaultTimeout(STEP_MS);
    // As if the person had allowed notifications: the service worker's `showNotification` needs it.
    await context.grantPermissions(['notifications'], { origin });
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error));

    cdp = await context.newCDPSession(page);
    await cdp.send('WebAuthn.enable');
    ({ authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
      options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
    }));
    cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
      for (const registration of updated) {
        if (registration.isDeleted) registrations.delete(registration.scopeURL);
        else registrations.set(registration.scopeURL, registration.registrationId);
      }
    });
    await cdp.send('ServiceWorker.enable');
  });

  afterAll(async () => {
    try {
      await browser?.close();
    } finally {
      await harness?.close();
    }
  });

  it('enrolls a passkey, shows the pushed payment, approves it and shows it executed', async () => {
    if (!harness) throw new Error('no harness');

    // 1. The operator enrolls Alice; her phone opens the link and creates the passkey.
    expect((await harness.admin('POST', '/users', { sub: 'alice', display_name: 'Alice Martin' })).status).toBe(201);
    const enrollment = await harness.admin('POST', '/users/alice/enrollments');
    expect(enrollment.body.enrollment_url).toBe(`${origin}/#/enroll/${enrollment.body.enrollment_code}`);
    const opened = await page.goto(enrollment.body.enrollment_url);
    expect(opened?.ok()).toBe(true);
    await page.getByTestId('enroll-button').tap();
    await page.getByTestId('inbox').waitFor();
    expect(await page.getByTestId('flash').textContent()).toContain('Alice Martin');
    await page.getByTestId('inbox-empty').waitFor();
    const { credentials } = await cdp.send('WebAuthn.getCredentials', { authenticatorId });
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ isResidentCredential: true, rpId: 'localhost' });

    // The subscription the PWA would have sent had Chromium given it one, aimed at the capturing sender.
    const subscription: PushSubscriptionJSON = {
      endpoint: 'https://push.example.test/send/browser-approval',
      expirationTime: null,
      keys: { p256dh: createECDH('prime256v1').generateKeys('base64url'), auth: randomBytes(16).toString('base64url') },
    };
    expect(await putFromPage(page, '/api/device/push-subscription', subscription)).toBe(204);

    // 2. The agent asks, over real HTTP, for EUR 490.00 to ACME Ltd.
    const { client_id, client_secret } = await harness.createClient('Support agent');
    const clock = harness.clock;
    const agent: AgentClient = createAgentClient({
      issuer: origin,
      clientId: client_id,
      clientSecret: client_secret,
      // The agent waits its `interval` by moving the server's clock, not by sleeping.
      now: () => clock.now(),
      sleep: async (ms) => clock.advance(ms / 1000),
    });
    const asked = await agent.requestApproval({ login_hint: 'alice', authorization_details: payment(), binding_message: 'Order 1042' });
    const id = asked.auth_req_id;
    const requestPath = `/#/requests/${id}`;

    // 3. The server pushes; the service worker shows that very message as a notification.
    await expect.poll(() => sent.filter((push) => push.endpoint === subscription.endpoint).length, poll).toBe(1);
    const push = sent.find((message) => message.endpoint === subscription.endpoint)!;
    const payload = JSON.parse(push.payload) as { kind: string; auth_req_id: string; summary: string };
    expect(payload).toEqual({ kind: 'approval_request', auth_req_id: id, summary: expect.stringContaining('EUR 490.00') });
    expect(payload.summary).toContain('ACME Ltd');
    expect(push.urgency).toBe('high');
    expect(push.ttlSeconds).toBeGreaterThan(0);
    expect(push.ttlSeconds).toBeLessThanOrEqual(asked.expires_in);

    await page.evaluate(async () => void (await navigator.serviceWorker.ready));
    await expect.poll(() => registrations.get(`${origin}/`), poll).toBeTypeOf('string');
    await deliverPushUntilShown(cdp, { origin, registrationId: registrations.get(`${origin}/`)!, data: push.payload }, async () => (await notifications(page, id)).length > 0);
    await expect.poll(() => notifications(page, id), poll).toEqual([{ title: 'Approval requested', body: payload.summary, tag: id, url: requestPath }]);

    // 4. The open inbox shows the request live; it opens the page the notification points at.
    const item = page.locator(`[data-testid="inbox-item"][data-auth-req-id="${id}"]`);
    expect(await item.getAttribute('href')).toBe(requestPath.slice(1));
    await item.tap();
    await page.waitForURL(`${origin}${requestPath}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    expect(await screen.getByTestId('amount').textContent()).toBe('EUR 490.00');
    expect(await screen.getByTestId('payee').textContent()).toBe('ACME Ltd (acct_77)');
    expect(await screen.getByTestId('purpose').textContent()).toBe('Refund for order 1042');
    expect(await screen.getByTestId('client-name').textContent()).toBe('Support agent');
    expect(await screen.getByTestId('binding-message').textContent()).toBe('Order 1042');
    expect(await screen.getByTestId('time-left').textContent()).toMatch(/\d/);
    expect(await screen.getByTestId('approve').isEnabled()).toBe(true);
    expect(await agent.pollToken(id)).toEqual({ status: 'pending' });

    await mkdir(`${ROOT}test/artifacts`, { recursive: true });
    await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
    // What the person sees on the phone's screen: the decision bar is sticky, so a full-page capture would paint it mid-page.
    await page.screenshot({ path: SCREENSHOT, animations: 'disabled' });
    // The README's picture is refreshed on request only, so a test run leaves the committed files alone.
    if (process.env.UPDATE_SCREENSHOTS === '1') await copyFile(SCREENSHOT, README_SCREENSHOT);

    // 5. Approve: the virtual authenticator signs this request's challenge.
    const signCount = async () => (await cdp.send('WebAuthn.getCredentials', { authenticatorId })).credentials[0]?.signCount;
    const signedBefore = await signCount();
    await screen.getByTestId('approve').tap();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    expect(await signCount()).toBe(signedBefore! + 1);

    // 6. The agent's poll gets the token; the redemption happens once; the outcome reaches the phone.
    const decision = await agent.waitForDecision(id, { interval: asked.interval, timeoutSeconds: 60 });
    if (decision.status !== 'approved') throw new Error(`expected approved, got ${decision.status}`);
    const redemption = await agent.redeem(decision.token.access_token, payment());
    expect(redemption).toMatchObject({ status: 'redeemed', idempotency_key: 'txn_1042' });
    const again = await agent.redeem(decision.token.access_token, payment()).then(
      () => null,
      (error: unknown) => error,
    );
    expect(again).toBeInstanceOf(CountersignError);
    expect(again).toMatchObject({ code: 'already_redeemed', status: 409, body: { redemption: { redemption_id: redemption.redemption_id } } });
    await page.locator('[data-testid="result"][data-result="awaiting_outcome"]').waitFor();

    await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 're_1042' });
    expect(await agent.getRequest(id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1042' } });
    await page.locator('[data-testid="result"][data-result="executed"]').waitFor();
    expect(await page.getByTestId('outcome-reference').textContent()).toBe('re_1042');
    expect(pageErrors).toEqual([]);
  });
});

/** PUTs JSON from the page, with its session cookie and `Origin`, as the PWA does; answers the status. */
function putFromPage(page: Page, path: string, body: unknown): Promise<number> {
  return page.evaluate(async ({ path, body }) => (await fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status, { path, body });
}

/** The service worker's notifications tagged `tag`, as the page's registration lists them. */
function notifications(page: Page, tag: string): Promise<Array<{ title: string; body: string; tag: string; url: unknown }>> {
  return page.evaluate(async (tag) => {
    const registration = await navigator.serviceWorker.ready;
    const shown = await registration.getNotifications({ tag });
    return shown.map((notification) => ({ title: notification.title, body: notification.body, tag: notification.tag, url: (notification.data as { url?: unknown } | null)?.url }));
  }, tag);
}
