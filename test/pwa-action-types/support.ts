import { createAgentClient, type AgentClient } from '@countersign/agent';
import type { AuthorizationDetails, RequestDisplay } from '@countersign/shared';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { createHarness, freePort, type Harness } from '../support/harness.ts';
import { expectAccessibleInBothSchemes } from '../support/pwa-axe.ts';
import { ARTIFACTS, enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, widthAt360, type AppBrowser } from '../support/pwa-browser.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The screenshots the README shows, one per action type (the payment's is browser-approval.test.ts's). */
const README_SCREENSHOTS = new Set(['deletion', 'message', 'access_change', 'record_change', 'batch']);
/** How long the tests poll the page for a value. */
export const poll = { timeout: STEP_MS, interval: 50 };

/**
 * What the test/pwa-action-types/ files share. What the person sees on the phone for each kind of action (docs/design.md "Display"), in headless
 * Chromium at a phone's viewport against the real server under the shipped policy: a deletion, a
 * message, an access change and a record change, each with the server's display on screen, axe-core
 * finding nothing, nothing wider than 360 px, a screenshot kept, and an approval with the passkey;
 * then a batch of three payments in two currencies, its totals, one approval, and redemption of
 * exactly that set, once. Screenshots are kept in test/artifacts/ as `types-<name>-phone.png`; with
 * `UPDATE_SCREENSHOTS=1` the README's are also copied to docs/screenshots/<name>.png (a plain run
 * leaves the committed pictures alone, as the other browser tests do).
 */
/**
 * Before the calling file's tests, starts the server, one Chromium, and two enrolled phones (the
 * person's, `tess`, and a finance reviewer's); closes them after. Answers the phone and the steps
 * the tests take on it.
 */
export function useTypesPhone() {
  const sub = 'tess';
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;
  /** A finance reviewer on a phone of their own, for the actions the policy rates `high` (an admin grant, a payout change). */
  let reviewer: AppBrowser;
  let page: Page;
  let agent: AgentClient;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    const credentials = await harness.createClient('Operations agent');
    agent = createAgentClient({ issuer: origin, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, 'phone');
    page = app.page;
    await page.goto(await enrollmentLink(harness, sub, 'Tess Operator'));
    await page.getByTestId('enroll-button').click();
    await page.getByTestId('inbox-empty').waitFor();
    reviewer = await openAppBrowser(browser, origin, 'phone');
    await reviewer.page.goto(await enrollmentLink(harness, 'rita', 'Rita Reviewer'));
    expect((await harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance'] })).status).toBe(200);
    await reviewer.page.getByTestId('enroll-button').click();
    await reviewer.page.getByTestId('inbox-empty').waitFor();
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /**
   * Fits 360 px, passes axe-core, and is kept as a screenshot (and, on request, as the README's).
   * `scrolled`: the screenshot starts at the action's card (a message's body is below the fold).
   * `whole`: the phone is as tall as the screen, so all of it is in one picture with the decision
   * bar at its foot (a full-page capture would paint the sticky bar half-way down).
   */
  async function check(name: string, { scrolled = false, whole = false } = {}): Promise<void> {
    const width = await widthAt360(page);
    expect(width.overflowing, `${name}: nothing sticks out at 360 px`).toEqual([]);
    expect(width.scrollWidth).toBeLessThanOrEqual(360);
    // The dark scheme has colours of its own (the warning, the roles, the table): axe measures them too.
    await expectAccessibleInBothSchemes(page, name);
    // No button left hovered by the last tap.
    await page.mouse.move(1, 1);
    if (scrolled) await page.getByTestId('action').evaluate((card) => window.scrollTo(0, card.getBoundingClientRect().top + window.scrollY - 12));
    const phone = page.viewportSize()!;
    if (whole) await page.setViewportSize({ width: phone.width, height: await page.evaluate(() => document.documentElement.scrollHeight) });
    await screenshot(page, `types-${name}`, 'phone');
    await page.setViewportSize(phone);
    if (process.env.UPDATE_SCREENSHOTS === '1' && README_SCREENSHOTS.has(name)) {
      await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
      await copyFile(`${ARTIFACTS}types-${name}-phone.png`, `${ROOT}docs/screenshots/${name}.png`);
    }
  }

  /** Asks for `details`, opens the request on the phone, and answers the request and what the server says the person sees. */
  async function open(details: readonly object[], binding_message?: string) {
    const asked = await agent.requestApproval({ login_hint: sub, authorization_details: details as AuthorizationDetails, ...(binding_message ? { binding_message } : {}) });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-auth-req-id'), poll).toBe(asked.auth_req_id);
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    const served = await page.evaluate(async (id) => (await (await fetch(`/api/device/requests/${id}`)).json()).request as RequestDisplay, asked.auth_req_id);
    return { asked, screen, served };
  }

  /** How many times a phone's passkey has signed. */
  const signCount = async (on: AppBrowser) => (await on.cdp.send('WebAuthn.getCredentials', { authenticatorId: on.authenticatorId })).credentials[0]?.signCount ?? 0;

  /**
   * Approves with the passkey (picking the agent's code when the tier asks for it); when the tier
   * also needs a finance reviewer, the reviewer approves next on their phone. Answers the agent's token.
   */
  async function approve(asked: { auth_req_id: string; binding_code?: string }, details: readonly object[]) {
    const before = await signCount(app);
    await page.getByTestId(asked.binding_code ? `code-${asked.binding_code}` : 'approve').click();
    await page.locator('[data-testid="result"]:is([data-result="approved"], [data-result="waiting"])').waitFor();
    expect(await signCount(app)).toBe(before + 1);
    if ((await page.getByTestId('result').getAttribute('data-result')) === 'waiting') {
      const reviewed = await signCount(reviewer);
      await reviewer.page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
      await reviewer.page.getByTestId('reviewer-note').waitFor();
      await reviewer.page.getByTestId('approve').click();
      await reviewer.page.locator('[data-testid="result"][data-result="approved"]').waitFor();
      expect(await signCount(reviewer)).toBe(reviewed + 1);
      // The customer's open screen follows.
      await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    }
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`expected approved, got ${polled.status}`);
    expect(polled.token.authorization_details).toEqual(details);
    return polled.token;
  }

  /** Denies with the passkey; the agent hears `denied`. */
  async function deny(authReqId: string): Promise<void> {
    await page.getByTestId('deny').click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    expect(await agent.pollToken(authReqId)).toEqual({ status: 'denied' });
  }

  return {
    sub,
    get harness() {
      return harness;
    },
    get origin() {
      return origin;
    },
    get page() {
      return page;
    },
    get app() {
      return app;
    },
    get reviewer() {
      return reviewer;
    },
    get agent() {
      return agent;
    },
    check,
    open,
    signCount,
    approve,
    deny,
  };
}
