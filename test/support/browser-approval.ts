import type { PushSender } from '@countersign/server';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createHarness, freePort, type Harness } from './harness.ts';

// The phone of test/browser-approval.test.ts: a server whose pushes are captured, and headless
// Chromium at a phone viewport with a CDP virtual authenticator and the service worker's registrations.

/** How long one step may wait for the page or the server before the test fails with its message. */
export const STEP_MS = 10_000;

/** One message the server handed to its push sender. */
export interface SentPush {
  endpoint: string;
  payload: string;
  ttlSeconds: number;
  urgency: string;
}

/** The server, the phone's page and what the test reads of both. */
export interface Phone {
  sent: SentPush[];
  pageErrors: Error[];
  origin: string;
  harness: Harness | undefined;
  browser: Browser | undefined;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** Service worker registrations by scope URL, as CDP reports them. */
  registrations: Map<string, string>;
}

/** Before the calling file's tests, starts the server and the phone (one Chromium); closes both after. */
export function usePhone(): Phone {
  const phone = { sent: [] as SentPush[], pageErrors: [] as Error[], registrations: new Map<string, string>() } as Phone;
  /** Chromium refuses `pushManager.subscribe` in a fresh context ("no Push API in incognito") and
   * has no push service offline (STACK.md "Web Push"), so the server sends to a stand-in
   * subscription, and the test hands the message it captured here to the service worker over CDP. */
  const pushSender: PushSender = {
    async send(subscription, payload, options) {
      phone.sent.push({ endpoint: subscription.endpoint, payload, ttlSeconds: options.ttlSeconds, urgency: options.urgency });
      return { status: 'sent', statusCode: 201 };
    },
  };

  beforeAll(async () => {
    const port = await freePort();
    // `localhost`, never 127.0.0.1: browsers refuse an IP address as the WebAuthn RP ID.
    phone.origin = `http://localhost:${port}`;
    phone.harness = await createHarness({ store: 'redis', publicUrl: phone.origin, pushSender });
    await phone.harness.listen(port);

    phone.browser = await chromium.launch({
      executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
    });
    const chromeMajor = phone.browser.version().split('.')[0];
    const context = await phone.browser.newContext({
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
    await context.grantPermissions(['notifications'], { origin: phone.origin });
    phone.page = await context.newPage();
    phone.page.on('pageerror', (error) => phone.pageErrors.push(error));

    phone.cdp = await context.newCDPSession(phone.page);
    await phone.cdp.send('WebAuthn.enable');
    phone.authenticatorId = (
      await phone.cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
      })
    ).authenticatorId;
    phone.cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
      for (const registration of updated) {
        if (registration.isDeleted) phone.registrations.delete(registration.scopeURL);
        else phone.registrations.set(registration.scopeURL, registration.registrationId);
      }
    });
    await phone.cdp.send('ServiceWorker.enable');
  });

  afterAll(async () => {
    try {
      await phone.browser?.close();
    } finally {
      await phone.harness?.close();
    }
  });
  return phone;
}

/** PUTs JSON from the page, with its session cookie and `Origin`, as the PWA does; answers the status. */
export function putFromPage(page: Page, path: string, body: unknown): Promise<number> {
  return page.evaluate(async ({ path, body }) => (await fetch(path, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status, { path, body });
}

/** The service worker's notifications tagged `tag`, as the page's registration lists them. */
export function notifications(page: Page, tag: string): Promise<Array<{ title: string; body: string; tag: string; url: unknown }>> {
  return page.evaluate(async (tag) => {
    const registration = await navigator.serviceWorker.ready;
    const shown = await registration.getNotifications({ tag });
    return shown.map((notification) => ({ title: notification.title, body: notification.body, tag: notification.tag, url: (notification.data as { url?: unknown } | null)?.url }));
  }, tag);
}
