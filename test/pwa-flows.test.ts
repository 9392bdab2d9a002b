import { CountersignError } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { randomBytes } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { expectAccessible } from './support/pwa-axe.ts';
import { ARTIFACTS, enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, VIEWPORTS, widthAt360, type AppBrowser, type ViewportName } from './support/pwa-browser.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const poll = { timeout: STEP_MS, interval: 50 };

/** EUR 1,500.00: the shipped policy's `elevated` tier (from EUR 1,000.00): number matching. */
const ELEVATED = 150_000;
/** EUR 12,000.00: the shipped policy's `high` tier (from EUR 10,000.00): number matching and a finance reviewer. */
const HIGH = 1_200_000;

/**
 * The approver's main journeys in headless Chromium at a phone's and a desktop's viewport, against
 * the real server under the shipped policy: number matching (a wrong code denies; the right one approves),
 * denying, "this wasn't me" (after which the same agent is refused for that person), a finance
 * reviewer approving after the customer, the history, and device management (rename, a link that
 * adds a second device, removing it). Every screen passes axe-core and is kept as a screenshot in
 * test/artifacts/; the README's number-matching and history screenshots come from the phone run
 * (copied into docs/screenshots/ with `UPDATE_SCREENSHOTS=1 pnpm test`).
 */
describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver’s journeys (%s)', (viewport) => {
  const customer = `cara-${viewport}`;
  const reviewerSub = `rita-${viewport}`;
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let phone: AppBrowser;
  let reviewer: AppBrowser;
  let page: Page;
  let agent: AgentClient;
  let otherAgent: AgentClient;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    // Two devices per user: the add-device journey below reaches the cap and sees it refused.
    harness = await createHarness({ publicUrl: origin, env: { MAX_DEVICES_PER_USER: '2' } });
    await harness.listen(port);
    const agentCredentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: origin, clientId: agentCredentials.client_id, clientSecret: agentCredentials.client_secret, fetch: harness.fetch });
    const otherCredentials = await harness.createClient('Unknown agent');
    otherAgent = createAgentClient({ issuer: origin, clientId: otherCredentials.client_id, clientSecret: otherCredentials.client_secret, fetch: harness.fetch });
    browser = await launchChromium();
    phone = await openAppBrowser(browser, origin, viewport);
    reviewer = await openAppBrowser(browser, origin, viewport);
    page = phone.page;
    await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /** Fits 360 px, passes axe-core, and is kept as `flow-<name>-<viewport>.png`. */
  async function check(name: string, on: Page = page): Promise<void> {
    const width = await widthAt360(on);
    expect(width.overflowing, `${name}: nothing sticks out at 360 px`).toEqual([]);
    await expectAccessible(on, name);
    await screenshot(on, `flow-${name}`, viewport);
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

  it('enrolls the customer and a finance reviewer, each on a device of their own', async () => {
    await page.goto(await enrollmentLink(harness, customer, 'Cara Customer'));
    await page.getByTestId('enroll-button').click();
    await page.getByTestId('inbox-empty').waitFor();
    expect(await page.getByTestId('nav-inbox').getAttribute('aria-current')).toBe('page');

    await reviewer.page.goto(await enrollmentLink(harness, reviewerSub, 'Rita Reviewer'));
    expect((await harness.admin('PUT', `/users/${reviewerSub}/roles`, { roles: ['reviewer:finance'] })).status).toBe(200);
    await reviewer.page.getByTestId('enroll-button').click();
    await reviewer.page.getByTestId('inbox-empty').waitFor();
  });

  it('denies an elevated request at the first wrong pick, and says plainly what happened and what to do', async () => {
    const asked = await ask(ELEVATED, agent, { binding_message: 'Order 2076' });
    await open(asked.auth_req_id);
    const shown = await page.locator('[data-testid="code-buttons"] button').evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.code));
    const wrong = shown.find((candidate) => candidate !== asked.binding_code)!;
    await page.getByTestId(`code-${wrong}`).click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    expect(await page.getByTestId('result-headline').textContent()).toContain('Denied: wrong code');
    expect(await page.getByTestId('result-detail').textContent()).toBe('That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.');
    expect(await focused()).toBe('result');
    // Nothing left to pick, and nothing that says to try again.
    expect(await page.getByTestId('code-buttons').count()).toBe(0);
    expect(await page.getByTestId('error').count()).toBe(0);
    expect(await page.getByTestId('request-screen').textContent()).not.toMatch(/pick again|tries left/);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    await check('number-matching-wrong-code');
  });

  it('approves an elevated request by picking the code the agent shows', async () => {
    const asked = await ask(ELEVATED, agent, { binding_message: 'Order 2077' });
    const code = asked.binding_code!;
    expect(code).toMatch(/^[0-9]{2}$/);
    await open(asked.auth_req_id);
    expect(await focused()).toBe('request-title');
    expect(await page.getByTestId('tier').textContent()).toContain('Elevated · you check a code');
    expect(await page.getByTestId('amount').textContent()).toBe('EUR 1,500.00');
    // The three codes in the server's order, none of them focused, no Approve button.
    const served = await page.evaluate(async (id) => (await (await fetch(`/api/device/requests/${id}`)).json()).request.number_matching.candidates as string[], asked.auth_req_id);
    const shown = await page.locator('[data-testid="code-buttons"] button').evaluateAll((buttons) => buttons.map((button) => (button as HTMLElement).dataset.code));
    expect(shown).toEqual(served);
    expect(shown).toContain(code);
    expect(await page.getByTestId('approve').count()).toBe(0);
    expect(await page.getByTestId('deny').isVisible()).toBe(true);
    expect(await page.getByTestId('report').isVisible()).toBe(true);
    await check('number-matching');
    if (viewport === 'phone' && process.env.UPDATE_SCREENSHOTS === '1') await copyFile(`${ARTIFACTS}flow-number-matching-phone.png`, `${ROOT}docs/screenshots/approval-number-matching.png`);

    await page.getByTestId(`code-${code}`).click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    expect(await focused()).toBe('result');
    expect((await agent.pollToken(asked.auth_req_id)).status).toBe('approved');
    await check('approved');
  });

  it('denies a request', async () => {
    const asked = await ask();
    await open(asked.auth_req_id);
    expect(await page.getByTestId('tier').textContent()).toContain('Standard');
    await page.getByTestId('deny').click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    await check('denied');
  });

  it('says “this wasn’t me”: confirms, denies with the passkey, and the agent is refused from then on', async () => {
    const asked = await ask(49_000, otherAgent);
    await open(asked.auth_req_id);
    await page.getByTestId('report').click();
    const dialog = page.getByTestId('report-dialog');
    await dialog.waitFor();
    // The focus starts on Cancel; Escape changes nothing.
    expect(await focused()).toBe('report-dialog-cancel');
    await check('report-dialog');
    await page.keyboard.press('Escape');
    await expect.poll(() => dialog.count(), poll).toBe(0);
    expect(await otherAgent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });

    await page.getByTestId('report').click();
    await page.getByTestId('report-dialog-confirm').click();
    await page.locator('[data-testid="result"][data-result="denied"][data-reported="true"]').waitFor();
    expect(await page.getByTestId('result-detail').textContent()).toContain('Unknown agent is blocked');
    expect(await otherAgent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    await check('reported');

    const refused = await ask(49_000, otherAgent).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(CountersignError);
    expect(refused).toMatchObject({ code: 'client_blocked' });
    // Another agent still reaches the person.
    expect((await ask()).auth_req_id).toBeTypeOf('string');
  });

  it('lets a finance reviewer approve a high-value request after the customer, and shows it executed', async () => {
    const asked = await ask(HIGH);
    await open(asked.auth_req_id);
    expect(await page.getByTestId('tier').textContent()).toContain('High risk · needs a finance reviewer');
    expect(await page.locator('[data-testid="approval"]').evaluateAll((items) => items.map((item) => [(item as HTMLElement).dataset.party, (item as HTMLElement).dataset.status]))).toEqual([
      ['customer', 'waiting'],
      ['role:reviewer:finance', 'waiting'],
    ]);
    await page.getByTestId(`code-${asked.binding_code}`).click();
    await page.locator('[data-testid="result"][data-result="waiting"]').waitFor();
    expect(await page.getByTestId('result-detail').textContent()).toContain('Finance reviewer');
    // Until everyone has approved, the customer can still deny or report it.
    expect(await page.getByTestId('deny').isVisible()).toBe(true);
    expect(await page.getByTestId('report').isVisible()).toBe(true);
    expect(await page.getByTestId('code-buttons').count()).toBe(0);
    await check('waiting-for-reviewer');

    const review = reviewer.page;
    await review.goto(`${origin}/#/`);
    const item = review.locator(`[data-testid="inbox-item"][data-auth-req-id="${asked.auth_req_id}"]`);
    await item.waitFor();
    await item.click();
    await expect.poll(() => review.getByTestId('request-screen').getAttribute('data-state'), poll).toBe('pending');
    expect(await review.getByTestId('reviewer-note').textContent()).toContain('finance reviewer');
    expect(await review.getByTestId('tier').textContent()).toContain('High risk · needs a finance reviewer');
    expect(await review.locator('[data-testid="approval"][data-party="customer"]').getAttribute('data-status')).toBe('approved');
    expect(await review.getByTestId('report').count()).toBe(0);
    expect(await review.getByTestId('code-buttons').count()).toBe(0);
    expect(await review.getByTestId('approve').textContent()).toBe('Approve as reviewer');
    await check('reviewer', review);
    await review.getByTestId('approve').click();
    await review.locator('[data-testid="result"][data-result="approved"]').waitFor();

    // The customer's open screen follows: approved, then executed once the agent reports.
    await expect.poll(() => result(), poll).toBe('approved');
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    const redemption = await agent.redeem(polled.token.access_token, asked.details);
    await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 'wire_9001' });
    await expect.poll(() => result(), poll).toBe('executed');
    expect(await page.getByTestId('outcome-reference').textContent()).toBe('wire_9001');
    await check('executed');
  });

  it('shows the history of decisions and their outcomes, newest first', async () => {
    await page.goto(`${origin}/#/`);
    await page.getByTestId('nav-history').click();
    await page.getByTestId('history-screen').waitFor();
    expect(await page.getByTestId('nav-history').getAttribute('aria-current')).toBe('page');
    const items = page.getByTestId('history-item');
    await expect.poll(() => items.count(), poll).toBe(5);
    expect(await items.evaluateAll((all) => all.map((item) => (item as HTMLElement).dataset.result))).toEqual(['executed', 'denied', 'denied', 'approved', 'denied']);
    expect(await items.nth(0).locator('h2').textContent()).toBe('Pay EUR 12,000.00 to ACME Ltd');
    expect(await items.nth(0).getByTestId('history-result').textContent()).toContain('Executed');
    expect(await items.nth(0).getByTestId('history-part').textContent()).toContain('You approved it');
    expect(await items.nth(1).getByTestId('history-result').textContent()).toContain('Reported');
    expect(await items.nth(1).getByTestId('history-part').textContent()).toContain('this wasn’t me');
    expect(await items.nth(2).getByTestId('history-part').textContent()).toContain('You denied it');
    expect(await items.nth(4).getByTestId('history-part').textContent()).toBe('Denied: the code picked was not the one the agent showed.');
    await check('history');
    if (viewport === 'phone' && process.env.UPDATE_SCREENSHOTS === '1') await copyFile(`${ARTIFACTS}flow-history-phone.png`, `${ROOT}docs/screenshots/history.png`);
    // The details open from the keyboard.
    await items.nth(0).getByTestId('history-more').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => items.nth(0).locator('details').getAttribute('open'), poll).not.toBeNull();
    expect(await items.nth(0).getByTestId('payee').textContent()).toBe('ACME Ltd (acct_77)');
    await check('history-details');
  });

  it('renames this device, adds a second one with a one-time link, is refused a third past the cap, and removes one', async () => {
    await page.getByTestId('nav-devices').click();
    await page.getByTestId('devices-screen').waitFor();
    const devices = page.getByTestId('device-item');
    await expect.poll(() => devices.count(), poll).toBe(1);
    expect(await devices.first().getByTestId('this-device').isVisible()).toBe(true);
    await check('devices');

    await devices.first().getByTestId('rename-device').click();
    const input = page.getByTestId('device-name-input');
    expect(await focused()).toBe('device-name-input');
    await input.fill('Cara’s phone');
    await check('devices-rename');
    await input.press('Enter');
    await expect.poll(() => devices.first().getByTestId('device-name').textContent(), poll).toBe('Cara’s phone');
    expect(await focused()).toBe('rename-device');

    // Making the link takes this device's passkey, not only its session.
    const signCount = async () => (await phone.cdp.send('WebAuthn.getCredentials', { authenticatorId: phone.authenticatorId })).credentials[0]!.signCount;
    const signedBefore = await signCount();
    await page.getByTestId('add-device').click();
    await page.getByTestId('enrollment').waitFor();
    expect(await signCount()).toBe(signedBefore + 1);
    const link = await page.getByTestId('enrollment-link').inputValue();
    expect(link).toMatch(new RegExp(`^${origin}/#/enroll/`));
    expect(await page.locator('svg.qr-code path').getAttribute('d')).toMatch(/^M\d+ \d+h1v1h-1z/);
    expect(await page.getByTestId('link-expires').textContent()).toContain('Works once');
    await check('add-device');

    // The link, opened on another device: a second passkey for the same person.
    const tablet = await openAppBrowser(browser, origin, viewport);
    try {
      await tablet.page.goto(link);
      await tablet.page.getByTestId('enroll-button').click();
      await tablet.page.getByTestId('inbox').waitFor();
      expect(await tablet.page.getByTestId('signed-in-as').textContent()).toBe('Cara Customer');
      // Used once: opened again, it is refused.
      const again = await openAppBrowser(browser, origin, viewport);
      await again.page.goto(link);
      await again.page.locator('[data-testid="enroll-screen"][data-link="invalid"]').waitFor();
      await again.context.close();

      await page.reload();
      await expect.poll(() => devices.count(), poll).toBe(2);
      // At the cap, another link is refused before the passkey is asked, and the panel says what to do.
      const signedAtCap = await signCount();
      await page.getByTestId('add-device').click();
      await expect.poll(() => page.getByTestId('add-device-panel').getByTestId('error').textContent(), poll).toBe('This account already has 2 devices, the most it may have. Remove one you no longer use (under Devices), then try again.');
      expect(await signCount()).toBe(signedAtCap);
      const second = devices.nth(1);
      expect(await second.getAttribute('data-this-device')).toBeNull();
      await second.getByTestId('remove-device').click();
      await page.getByTestId('remove-dialog').waitFor();
      expect(await focused()).toBe('remove-dialog-cancel');
      await check('remove-dialog');
      await page.getByTestId('remove-dialog-confirm').click();
      await expect.poll(() => devices.count(), poll).toBe(1);
      expect(await page.getByTestId('devices-status').textContent()).toContain('was removed');

      // The removed device's session no longer works: it says it is not enrolled.
      await tablet.page.reload();
      await tablet.page.getByTestId('not-enrolled').waitFor();
    } finally {
      await tablet.context.close();
    }
    expect(phone.errors).toEqual([]);
    expect(reviewer.errors).toEqual([]);
  });
});
