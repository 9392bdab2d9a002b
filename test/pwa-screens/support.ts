import { AxeBuilder } from '@axe-core/playwright';
import type { PushSender } from '@countersign/server';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { enrollOnPage, listeningHarness, openAppBrowser, screenshot, STEP_MS, widthAt360, type AppBrowser, type ViewportName } from '../support/pwa-browser.ts';

/** How long the tests poll the page for a value. */
export const poll = { timeout: STEP_MS, interval: 50 };

/**
 * A request whose every text is long, to show that nothing overflows a narrow phone. The amount
 * stays under EUR 1,000.00, the default policy's `standard` tier (no number matching yet).
 */
export const LONG_PAYMENT = payment({
  amount_minor: 99999,
  payee: { id: 'acct_77000000000000000000000000000000000000000000000000000000000', name: 'ACME Logistics and Warehousing International Holdings (Rotterdam) B.V.' },
  purpose: 'Refund-for-order-1042-shipment-77-of-80-warehouse-Rotterdam-NL-returned-damaged-goods and a second sentence to wrap.',
});
export const LONG_BINDING = 'Order 1042 for ACME Ltd, shipment 77 of 80, batch A-B-C-D-E-F-G';

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
 * What the test/pwa-screens/ files share. Every screen of the approver PWA in headless Chromium, at a phone's and a desktop's viewport,
 * against the real server under the shipped policy: not enrolled, enrollment (from the keyboard),
 * the inbox, a request, deny (from the keyboard), approve, an expired request, a notification
 * click opening its request, number matching (a code picked from the keyboard) and the "this
 * wasn't me" confirmation, a finance reviewer's view and the customer waiting for it, the history,
 * the devices and an add-device link, the offline screen, and an unknown link. Each screen passes
 * axe-core, fits 360 px and is kept as a screenshot in test/artifacts/.
 */
/**
 * Before the calling describe's tests, starts the server (its pushes recorded in `sent`), the
 * agent ("Support agent") and Alice's app browser in `chromium` at `viewport`, enrolled unless
 * `enroll` is false; closes them after.
 */
export function useScreens(chromium: { readonly browser: Browser }, viewport: ViewportName, { enroll = true } = {}) {
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
  let app: AppBrowser;
  let page: Page;
  let agent: AgentClient;
  // What the tests read, set before them.
  const state = {} as { harness: Harness; origin: string; app: AppBrowser; page: Page; agent: AgentClient };

  beforeAll(async () => {
    ({ harness, origin } = await listeningHarness({ pushSender }));
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: origin, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    app = await openAppBrowser(chromium.browser, origin, viewport);
    page = app.page;
    Object.assign(state, { harness, origin, app, page, agent });
    if (enroll) await enrollOnPage(page, harness, sub, 'Alice Martin');
  });

  afterAll(async () => {
    try {
      // No uncaught error on the page over the file's screens, as at the end of the one run these were.
      expect(app?.errors ?? [], 'the app’s page').toEqual([]);
    } finally {
      await app?.context.close();
      await harness?.close();
    }
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

  /** Asks for `details` and opens the request on the phone, pending, with the focus on its title. */
  async function openAsked(details?: Parameters<typeof ask>[0], extra: Parameters<typeof ask>[1] = {}) {
    const asked = await ask(details, extra);
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    await expect.poll(() => page.getByTestId('request-screen').getAttribute('data-state'), poll).toBe('pending');
    return asked;
  }

  return Object.assign(state, { sub, sent, focused, check, ask, openAsked });
}
