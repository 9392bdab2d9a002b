import { createAgentClient, type AgentClient } from '@countersign/agent';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import type { Harness } from '../support/harness.ts';
import { payment } from '../support/payment.ts';
import { expectAccessible } from '../support/pwa-axe.ts';
import { ARTIFACTS, enrollmentLink, enrollOnPage, listeningHarness, openAppBrowser, screenshot, STEP_MS, widthAt360, type AppBrowser, type ViewportName } from '../support/pwa-browser.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How long the tests poll the page for a value. */
export const poll = { timeout: STEP_MS, interval: 50 };

/** EUR 1,500.00: the shipped policy's `elevated` tier (from EUR 1,000.00): number matching. */
export const ELEVATED = 150_000;
/** EUR 12,000.00: the shipped policy's `high` tier (from EUR 10,000.00): number matching and a finance reviewer. */
export const HIGH = 1_200_000;

/**
 * What the test/pwa-flows/ files share. The approver's main journeys in headless Chromium at a phone's and a desktop's viewport, against
 * the real server under the shipped policy: number matching (a wrong code denies; the right one approves),
 * denying, "this wasn't me" (after which the same agent is refused for that person), a finance
 * reviewer approving after the customer, the history, and device management (rename, a link that
 * adds a second device, removing it). Every screen passes axe-core and is kept as a screenshot in
 * test/artifacts/; the README's number-matching and history screenshots come from the phone run
 * (copied into docs/screenshots/ with `UPDATE_SCREENSHOTS=1 pnpm test`).
 */
/**
 * Before the calling describe's tests, starts the server, two agents ("Support agent" and "Unknown
 * agent") and two app browsers in `chromium` at `viewport`: the customer's and a finance reviewer's,
 * both enrolled unless `enroll` is false; closes them after.
 */
export function useJourneys(chromium: { readonly browser: Browser }, viewport: ViewportName, { enroll = true } = {}) {
  const customer = `cara-${viewport}`;
  const reviewerSub = `rita-${viewport}`;
  let harness: Harness;
  let origin: string;
  let phone: AppBrowser;
  let reviewer: AppBrowser;
  let page: Page;
  let agent: AgentClient;
  let otherAgent: AgentClient;
  // What the tests read, set before them.
  const state = {} as { harness: Harness; origin: string; page: Page; phone: AppBrowser; reviewer: AppBrowser; agent: AgentClient; otherAgent: AgentClient };

  /** The customer enrolls on their phone, from an operator's link. */
  async function enrollCustomer(): Promise<void> {
    await enrollOnPage(page, harness, customer, 'Cara Customer');
  }

  /** The finance reviewer enrolls on a device of their own, given the role before they finish. */
  async function enrollReviewer(): Promise<void> {
    await reviewer.page.goto(await enrollmentLink(harness, reviewerSub, 'Rita Reviewer'));
    expect((await harness.admin('PUT', `/users/${reviewerSub}/roles`, { roles: ['reviewer:finance'] })).status).toBe(200);
    await reviewer.page.getByTestId('enroll-button').click();
    await reviewer.page.getByTestId('inbox-empty').waitFor();
  }

  beforeAll(async () => {
    // Two devices per user: the add-device journey reaches the cap and sees it refused.
    ({ harness, origin } = await listeningHarness({ env: { MAX_DEVICES_PER_USER: '2' } }));
    const agentCredentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: origin, clientId: agentCredentials.client_id, clientSecret: agentCredentials.client_secret, fetch: harness.fetch });
    const otherCredentials = await harness.createClient('Unknown agent');
    otherAgent = createAgentClient({ issuer: origin, clientId: otherCredentials.client_id, clientSecret: otherCredentials.client_secret, fetch: harness.fetch });
    phone = await openAppBrowser(chromium.browser, origin, viewport);
    reviewer = await openAppBrowser(chromium.browser, origin, viewport);
    page = phone.page;
    Object.assign(state, { harness, origin, page, phone, reviewer, agent, otherAgent });
    await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
    if (enroll) {
      await enrollCustomer();
      await enrollReviewer();
    }
  });

  afterAll(async () => {
    try {
      // No uncaught error on either page over the file's journeys, as at the end of the one journey these were.
      expect(phone?.errors ?? [], 'the customer’s page').toEqual([]);
      expect(reviewer?.errors ?? [], 'the reviewer’s page').toEqual([]);
    } finally {
      await phone?.context.close();
      await reviewer?.context.close();
      await harness?.close();
    }
  });

  /** Fits 360 px, passes axe-core, and is kept as `flow-<name>-<viewport>.png`. */
  async function check(name: string, on: Page = page): Promise<void> {
    const width = await widthAt360(on);
    expect(width.overflowing, `${name}: nothing sticks out at 360 px`).toEqual([]);
    await expectAccessible(on, name);
    await screenshot(on, `flow-${name}`, viewport);
  }

  /** On the phone run with `UPDATE_SCREENSHOTS=1`, copies `flow-<name>-phone.png` to the README's docs/screenshots/<readme>.png. */
  async function keepForReadme(name: string, readme: string): Promise<void> {
    if (viewport === 'phone' && process.env.UPDATE_SCREENSHOTS === '1') await copyFile(`${ARTIFACTS}flow-${name}-phone.png`, `${ROOT}docs/screenshots/${readme}.png`);
  }

  async function ask(amountMinor = 49_000, client = agent, extra: { binding_message?: string } = {}) {
    const details = payment({ transaction_id: `txn_${randomBytes(6).toString('hex')}`, amount_minor: amountMinor });
    return { ...(await client.requestApproval({ login_hint: customer, authorization_details: details, ...extra })), details };
  }
  const focused = (on: Page = page) => on.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.testid ?? document.activeElement?.tagName.toLowerCase());
  const result = (on: Page = page) => on.getByTestId('result').getAttribute('data-result');

  async function open(id: string, on: Page = page): Promise<void> {
    await on.goto(`${origin}/#/requests/${id}`);
    await expect.poll(() => on.getByTestId('request-screen').getAttribute('data-auth-req-id'), poll).toBe(id);
  }

  return Object.assign(state, { customer, reviewerSub, enrollCustomer, enrollReviewer, check, keepForReadme, ask, focused, result, open });
}
