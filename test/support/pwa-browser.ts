import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type CDPSession, type Page, type Worker } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { createHarness, freePort, type Harness, type HarnessOptions } from './harness.ts';

/** Screenshots of every screen go here (gitignored; CI keeps them as artifacts). */
export const ARTIFACTS = fileURLToPath(new URL('../artifacts/', import.meta.url));

/** How long one step may wait for the page or the server. */
export const STEP_MS = 10_000;

/** The two viewports the approver PWA is checked at: a phone and a desktop. */
export const VIEWPORTS = {
  phone: { width: 390, height: 844, isMobile: true, hasTouch: true, deviceScaleFactor: 2 },
  desktop: { width: 1280, height: 800, isMobile: false, hasTouch: false, deviceScaleFactor: 1 },
} as const;
export type ViewportName = keyof typeof VIEWPORTS;

/** Headless Chromium as STACK.md says it works here. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
}

/**
 * One headless Chromium for the calling file (or describe): launched before its tests, closed
 * after them; read it through `.browser`. A file checking both viewports shares it between them
 * (each viewport gets contexts of its own), so a file launches Chromium once.
 */
export function useChromium(): { readonly browser: Browser } {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return {
    get browser() {
      return browser;
    },
  };
}

/** One browser profile on the app: a page, its CDP session and a virtual passkey authenticator. */
export interface AppBrowser {
  context: BrowserContext;
  page: Page;
  cdp: CDPSession;
  authenticatorId: string;
  /** Uncaught errors of the page. */
  errors: Error[];
  /** Service worker registrations by scope URL, as CDP reports them (for `deliverPushMessage`). */
  registrations: Map<string, string>;
}

/**
 * A fresh context at a viewport, with notifications allowed (so the worker's `showNotification`
 * works), a CTAP2 platform authenticator with user verification (WebAuthn over CDP), and the
 * ServiceWorker domain on.
 */
export async function openAppBrowser(browser: Browser, origin: string, viewport: ViewportName, options: { colorScheme?: 'light' | 'dark' } = {}): Promise<AppBrowser> {
  const { width, height, ...device } = VIEWPORTS[viewport];
  const chromeMajor = browser.version().split('.')[0];
  const context = await browser.newContext({
    viewport: { width, height },
    ...device,
    ...(device.isMobile ? { userAgent: `Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${chromeMajor}.0.0.0 Mobile Safari/537.36` } : {}),
    colorScheme: options.colorScheme ?? 'light',
    reducedMotion: 'no-preference',
    locale: 'en-GB',
  });
  context.setDefaultTimeout(STEP_MS);
  await context.grantPermissions(['notifications'], { origin });
  const page = await context.newPage();
  const errors: Error[] = [];
  page.on('pageerror', (error) => errors.push(error));
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  const { authenticatorId } = await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  const registrations = new Map<string, string>();
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const registration of updated) {
      if (registration.isDeleted) registrations.delete(registration.scopeURL);
      else registrations.set(registration.scopeURL, registration.registrationId);
    }
  });
  await cdp.send('ServiceWorker.enable');
  return { context, page, cdp, authenticatorId, errors, registrations };
}

/** Creates the user and an enrollment link as the operator; answers the link. */
export async function enrollmentLink(harness: Harness, sub: string, displayName: string): Promise<string> {
  await harness.admin('POST', '/users', { sub, display_name: displayName });
  const enrollment = await harness.admin('POST', `/users/${sub}/enrollments`);
  if (enrollment.status !== 201) throw new Error(`no enrollment: ${JSON.stringify(enrollment.body)}`);
  return enrollment.body.enrollment_url as string;
}

/** Enrolls `sub` (created as `displayName`) on `page` from an operator's link, and waits for the empty inbox. */
export async function enrollOnPage(page: Page, harness: Harness, sub: string, displayName: string): Promise<void> {
  await page.goto(await enrollmentLink(harness, sub, displayName));
  await page.getByTestId('enroll-button').click();
  await page.getByTestId('inbox-empty').waitFor();
}

/** A harness listening on a free port, its `PUBLIC_URL` that port's localhost origin (where a browser opens the app). */
export async function listeningHarness(options: Omit<HarnessOptions, 'publicUrl'> = {}): Promise<{ harness: Harness; origin: string }> {
  const port = await freePort();
  const origin = `http://localhost:${port}`;
  const harness = await createHarness({ ...options, publicUrl: origin });
  await harness.listen(port);
  return { harness, origin };
}

/** Waits until the service worker is active and controls the page (it claims clients on activate). */
export async function waitForServiceWorker(page: Page): Promise<void> {
  await page.evaluate(async () => {
    await navigator.serviceWorker.ready;
    if (navigator.serviceWorker.controller) return;
    await new Promise((resolve) => navigator.serviceWorker.addEventListener('controllerchange', resolve, { once: true }));
  });
}

/**
 * Delivers a push message to the app's service worker over CDP until `shown()` reports the
 * notification it should raise. Chromium drops a message delivered while the worker is still
 * starting (seen here under load), and the app tags notifications per request, so delivering the
 * same message again replaces rather than adds: the retry is safe. Gives up after `attempts`.
 */
export async function deliverPushUntilShown(cdp: CDPSession, deliver: { origin: string; registrationId: string; data: string }, shown: () => Promise<boolean>, attempts = 5): Promise<void> {
  for (let attempt = 1; attempt <= attempts; attempt++) {
    await cdp.send('ServiceWorker.deliverPushMessage', deliver);
    const deadline = Date.now() + 2_000;
    while (Date.now() < deadline) {
      if (await shown()) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

/** The app's service worker, as Playwright sees it (to evaluate code in it). */
export async function appServiceWorker(context: BrowserContext, origin: string): Promise<Worker> {
  const url = `${origin}/sw.js`;
  return context.serviceWorkers().find((worker) => worker.url() === url) ?? context.waitForEvent('serviceworker', { predicate: (worker) => worker.url() === url });
}

/** A screenshot of what is on screen now, named `<name>-<viewport>.png`. */
export async function screenshot(page: Page, name: string, viewport: ViewportName): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}-${viewport}.png`, animations: 'disabled' });
}

/**
 * Whether the current screen fits a 360 px wide phone: the page is laid out at 360 px and
 * nothing makes it wider. The viewport is put back afterwards.
 *
 * @returns the page's scroll width at 360 px, and what sticks out, if anything.
 */
export async function widthAt360(page: Page): Promise<{ scrollWidth: number; overflowing: string[] }> {
  const before = page.viewportSize();
  await page.setViewportSize({ width: 360, height: before?.height ?? 740 });
  try {
    return await page.evaluate(() => {
      const overflowing = [...document.querySelectorAll<HTMLElement>('body *')]
        .filter((element) => element.getClientRects().length > 0 && element.getBoundingClientRect().right > 360.5)
        .map((element) => `${element.tagName.toLowerCase()}${element.dataset.testid ? `[${element.dataset.testid}]` : ''}.${element.className}`);
      return { scrollWidth: document.documentElement.scrollWidth, overflowing };
    });
  } finally {
    if (before) await page.setViewportSize(before);
  }
}

/**
 * Presses Tab until the element with `testid` has the focus, and answers the test ids focused on
 * the way (so a test can check the order). Throws after `max` presses.
 */
export async function tabTo(page: Page, testid: string, max = 30): Promise<string[]> {
  const path: string[] = [];
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => {
      const element = document.activeElement as HTMLElement | null;
      return element?.dataset.testid ?? element?.tagName.toLowerCase() ?? '';
    });
    path.push(focused);
    if (focused === testid) return path;
  }
  throw new Error(`${testid} never got the focus; tabbed through ${path.join(', ')}`);
}
