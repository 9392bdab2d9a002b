import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { bcAuthorize, pollToken } from '../guarantees/policy-support.ts';
import type { Harness } from '../support/harness.ts';
import { mandate, spend, spendPayment } from '../support/mandate.ts';
import { expectAccessibleInBothSchemes } from '../support/pwa-axe.ts';
import { ARTIFACTS, enrollOnPage, launchChromium, listeningHarness, openAppBrowser, screenshot, STEP_MS, widthAt360, type AppBrowser } from '../support/pwa-browser.ts';
import { basic } from '../support/raw-request.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** How long the tests poll the page for a value. */
export const poll = { timeout: STEP_MS, interval: 50 };

/**
 * What the test/pwa-mandates/ files share. A standing mandate on the phone (docs/mandates.md), in headless Chromium at 390×844
 * with a virtual passkey, against the real server under the shipped policy: the agent asks at
 * /bc-authorize for EUR 1.00–10.00 a payment, EUR 37.00 and 4 payments a month, to two payees;
 * the person reads the bounds in words (each checked against the server's display) and approves
 * with number matching; the agent spends twice at /redeem (one reported succeeded, one failed);
 * the Mandates screens show what is left and each payment with its outcome, as the server's
 * MandateView has them; the person stops it (confirmation, then the passkey), and the next spend
 * is refused `mandate_revoked`. axe-core in both schemes on the approval, the active and the
 * revoked mandate; screenshots in test/artifacts/ as `mandate-*-phone.png`, and with
 * `UPDATE_SCREENSHOTS=1` also as the README's docs/screenshots/mandate-*.png.
 */
/**
 * Before the calling file's tests, starts the server, one Chromium and Mia's enrolled phone, and
 * creates the agent ("Bill payer"); closes them after. Answers the phone and the steps the tests take.
 */
export function useMandatePhone() {
  const sub = 'mia';
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;
  let page: Page;
  let client: { client_id: string; client_secret: string };
  // What the tests read, set before them.
  const state = {} as { harness: Harness; origin: string; app: AppBrowser; page: Page; client: typeof client };

  beforeAll(async () => {
    ({ harness, origin } = await listeningHarness());
    client = await harness.createClient('Bill payer');
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, 'phone');
    page = app.page;
    await enrollOnPage(page, harness, sub, 'Mia Payer');
    Object.assign(state, { harness, origin, app, page, client });
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /** Fits 360 px, passes axe-core in both schemes, and is kept as a screenshot (and, on request, as the README's). */
  async function check(name: string, { whole = false } = {}): Promise<void> {
    expect(await widthAt360(page), `${name}: nothing sticks out at 360 px`).toEqual({ scrollWidth: 360, overflowing: [] });
    await expectAccessibleInBothSchemes(page, name);
    await page.mouse.move(1, 1);
    const phone = page.viewportSize()!;
    // The whole screen in one picture, the approval's decision bar at its foot.
    if (whole) await page.setViewportSize({ width: phone.width, height: await page.evaluate(() => document.documentElement.scrollHeight) });
    await screenshot(page, name, 'phone');
    await page.setViewportSize(phone);
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      await mkdir(`${ROOT}docs/screenshots`, { recursive: true });
      await copyFile(`${ARTIFACTS}${name}-phone.png`, `${ROOT}docs/screenshots/${name}.png`);
    }
  }

  /** How many times the phone's passkey has signed. */
  const signCount = async () => (await app.cdp.send('WebAuthn.getCredentials', { authenticatorId: app.authenticatorId })).credentials[0]?.signCount ?? 0;
  /** A device API answer as the phone's session gets it. */
  const served = <T>(path: string) => page.evaluate(async (url) => (await (await fetch(url)).json()) as unknown, `/api/device${path}`) as Promise<T>;
  const report = (redemptionId: string, body: Record<string, unknown>) => harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body, headers: { authorization: basic(client) } });
  const texts = (testid: string) => page.getByTestId(testid).allTextContents();

  /** The agent asks for the utility-bills mandate (EUR 37.00 and 4 payments a month, receipts on). */
  async function askMandate() {
    const details = mandate(harness.clock.now(), { period: 'month', max_spends: 4, receipts: true });
    const asked = await bcAuthorize(harness, client, { login_hint: sub, details, binding_message: 'Utility bills' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    return { authReqId: asked.body.auth_req_id as string, code: asked.body.binding_code as string };
  }

  /** Picks the agent's code on the open request and answers the agent's access token. */
  async function approveOnPhone(asked: { authReqId: string; code: string }): Promise<string> {
    await page.getByTestId(`code-${asked.code}`).click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    const polled = await pollToken(harness, client, asked.authReqId);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    return polled.body.access_token as string;
  }

  /** Two spends at /redeem: EUR 10.00 to ACME (succeeded), EUR 4.50 to the Water Board (failed). */
  async function spendTwice(token: string): Promise<void> {
    const first = await spend(harness, client, token, spendPayment('bill_1', { amount_minor: 1000 }));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await report(first.body.redemption_id, { status: 'succeeded', reference: 'pay_981' })).status).toBe(200);
    const second = await spend(harness, client, token, spendPayment('bill_2', { amount_minor: 450, payee: { id: 'acct_78', name: 'Water Board' }, purpose: 'Water' }));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect((await report(second.body.redemption_id, { status: 'failed', reason: 'Account closed' })).status).toBe(200);
  }

  /** The mandate asked, approved on the phone and spent twice; answers its id and the agent's token. */
  async function spentMandate() {
    const asked = await askMandate();
    await page.goto(`${origin}/#/requests/${asked.authReqId}`);
    const token = await approveOnPhone(asked);
    await spendTwice(token);
    return { authReqId: asked.authReqId, token };
  }

  return Object.assign(state, { sub, check, signCount, served, texts, askMandate, approveOnPhone, spentMandate });
}
