import type { MandateDetailResponse, MandateListResponse, MandateView, RequestDisplay } from '@countersign/shared';
import { copyFile, mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatWhen } from '../approver-pwa/src/ui/format-time.ts';
import { bcAuthorize, pollToken } from './guarantees/policy-support.ts';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { mandate, spend, spendPayment } from './support/mandate.ts';
import { expectAccessibleInBothSchemes } from './support/pwa-axe.ts';
import { ARTIFACTS, enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, widthAt360, type AppBrowser } from './support/pwa-browser.ts';
import { basic } from './support/raw-request.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const poll = { timeout: STEP_MS, interval: 50 };

/**
 * A standing mandate on the phone (docs/mandates.md), in headless Chromium at 390×844
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
describe('a standing mandate on the phone: approve, follow the payments, revoke', () => {
  const sub = 'mia';
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;
  let page: Page;
  let client: { client_id: string; client_secret: string };

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    client = await harness.createClient('Bill payer');
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, 'phone');
    page = app.page;
    await page.goto(await enrollmentLink(harness, sub, 'Mia Payer'));
    await page.getByTestId('enroll-button').click();
    await page.getByTestId('inbox-empty').waitFor();
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

  it('shows the bounds in words, approves with number matching, lists the payments with outcomes, and stops it with the passkey', async () => {
    const details = mandate(harness.clock.now(), { period: 'month', max_spends: 4, receipts: true });
    const asked = await bcAuthorize(harness, client, { login_hint: sub, details, binding_message: 'Utility bills' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const authReqId = asked.body.auth_req_id as string;
    // Every mandate is at least elevated: number matching.
    expect(asked.body.binding_code).toMatch(/^\d{2}$/);

    // The approval: the bounds in words, each as the server's display says it.
    await page.goto(`${origin}/#/requests/${authReqId}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    const { request } = await served<{ request: RequestDisplay }>(`/requests/${authReqId}`);
    const display = request.actions[0]!;
    const line = (label: string) => display.fields.find((field) => field.label === label)!.value;
    expect(display.mandate).toMatchObject({ period: 'month', max_spends: 4, receipts: true, limits: [{ currency: 'EUR', total: { formatted_code: 'EUR 37.00' } }] });
    const card = screen.locator('[data-testid="action"][data-type="mandate"]');
    expect(await screen.getByTestId('request-title').textContent()).toBe(display.title);
    expect(display.title).toBe('Allow payments to ACME Utilities and 1 more: up to EUR 37.00 a month');
    expect(await card.getByTestId('mandate-lead').textContent()).toMatch(/^A standing permission: /);
    expect(await card.locator('.amount-label').textContent()).toBe('Up to, each month');
    expect(await card.getByTestId('mandate-total').textContent()).toBe('EUR 37.00');
    expect(await card.getByTestId('mandate-total').getAttribute('data-count')).toBe('3700');
    expect(line('In all')).toBe('up to EUR 37.00 a month');
    expect(await card.getByTestId('mandate-range').textContent()).toBe(`Each payment ${line('Each payment')}`);
    expect(line('Each payment')).toBe('EUR 1.00 to EUR 10.00');
    expect(await card.locator('[data-testid="mandate-payees"] li').allTextContents()).toEqual(line('Payees').split(', '));
    expect(line('Payees')).toBe('ACME Utilities (acct_77), Water Board (acct_78)');
    expect(await card.getByTestId('mandate-spends').textContent()).toBe('At most 4 payments a month');
    expect(line('How many')).toBe('at most 4 payments a month');
    expect(await card.getByTestId('mandate-from').textContent()).toBe(line('From'));
    expect(await card.getByTestId('mandate-until').textContent()).toBe(line('Until'));
    expect(line('Until')).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/);
    expect(await card.getByTestId('mandate-receipts').textContent()).toBe('On: a notification for each payment');
    expect(await card.getByTestId('purpose').textContent()).toBe('Utility bills');
    // The lines the part shows are not repeated; purpose and transaction stay the server's.
    expect(await card.locator('dt').allTextContents()).toEqual(['How many', 'From', 'Until', 'Receipts', 'Purpose', 'Transaction']);
    expect(await screen.getByTestId('code-buttons').locator('button').count()).toBe(3);
    await check('mandate-approve', { whole: true });

    const before = await signCount();
    await page.getByTestId(`code-${asked.body.binding_code}`).click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    expect(await signCount()).toBe(before + 1);
    expect(await page.getByTestId('result-detail').textContent()).toBe('The agent may now make payments within these bounds until the mandate ends. See each payment, or stop it, under Mandates.');
    const polled = await pollToken(harness, client, authReqId);
    expect(polled.status, JSON.stringify(polled.body)).toBe(200);
    const token = polled.body.access_token as string;

    // Two spends at /redeem: EUR 10.00 to ACME (succeeded), EUR 4.50 to the Water Board (failed).
    const first = await spend(harness, client, token, spendPayment('bill_1', { amount_minor: 1000 }));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await report(first.body.redemption_id, { status: 'succeeded', reference: 'pay_981' })).status).toBe(200);
    const second = await spend(harness, client, token, spendPayment('bill_2', { amount_minor: 450, payee: { id: 'acct_78', name: 'Water Board' }, purpose: 'Water' }));
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect((await report(second.body.redemption_id, { status: 'failed', reason: 'Account closed' })).status).toBe(200);

    // The list: active, what is left this month, payments left; as the server's MandateView.
    // A request's screen keeps to its task: back to the inbox, where the navigation is.
    await page.locator('a.back-link').click();
    await page.getByTestId('nav-mandates').click();
    expect(await page.getByTestId('nav-mandates').getAttribute('aria-current')).toBe('page');
    const item = page.locator(`[data-testid="mandate-item"][data-auth-req-id="${authReqId}"]`);
    await item.waitFor();
    const [listed] = (await served<MandateListResponse>('/mandates')).mandates as [MandateView];
    expect(listed).toMatchObject({ auth_req_id: authReqId, status: 'active', client_name: 'Bill payer', spends_left: 2 });
    expect(listed.remaining.map((left) => [left.left.formatted_code, left.spent.formatted_code, left.total.formatted_code])).toEqual([['EUR 22.50', 'EUR 14.50', 'EUR 37.00']]);
    expect(await item.getByTestId('mandate-status').textContent()).toBe('✓ Active');
    expect(await item.getByTestId('client-name').textContent()).toBe('Bill payer');
    expect(await item.getByTestId('remaining-left').allTextContents()).toEqual(listed.remaining.map((left) => left.left.formatted_code));
    expect(await item.getByTestId('remaining').first().textContent()).toBe('EUR 22.50 left this monthof EUR 37.00, EUR 14.50 paid');
    expect(await item.getByTestId('spends-left').textContent()).toBe('2 payments left this month');
    expect(await item.getByTestId('mandate-spend-count').textContent()).toBe('2 payments made');
    expect(await widthAt360(page), 'the list and its four-part navigation fit 360 px').toEqual({ scrollWidth: 360, overflowing: [] });

    // One mandate: every payment, newest first, with its outcome.
    await item.getByTestId('mandate-open').click();
    const detail = page.getByTestId('mandate-screen');
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('active');
    const opened = await served<MandateDetailResponse>(`/mandates/${authReqId}`);
    expect(opened.mandate.spends.map((spent) => [spent.transaction_id, spent.outcome])).toEqual([
      ['bill_2', { status: 'failed', reason: 'Account closed' }],
      ['bill_1', { status: 'succeeded', reference: 'pay_981' }],
    ]);
    expect(await page.getByTestId('mandate-title').textContent()).toBe(opened.mandate.display.title);
    expect(await texts('spend-amount')).toEqual(opened.mandate.spends.map((spent) => spent.amount.formatted_code));
    expect(await texts('spend-amount')).toEqual(['EUR 4.50', 'EUR 10.00']);
    expect(await texts('spend-payee')).toEqual(['Water Board (acct_78)', 'ACME Utilities (acct_77)']);
    expect(await texts('spend-when')).toEqual(opened.mandate.spends.map((spent) => formatWhen(spent.spent_at, new Date(), 'en-GB')));
    expect(await texts('spend-outcome')).toEqual(['! Failed', '✓ Succeeded']);
    expect(await texts('spend-reason')).toEqual(['Account closed']);
    expect(await texts('spend-reference')).toEqual(['pay_981']);
    expect(await texts('remaining-left')).toEqual(['EUR 22.50']);
    expect(await page.getByTestId('mandate-period').textContent()).toBe(`This month runs until ${formatWhen(opened.mandate.period!.end, new Date(), 'en-GB')}; the amounts then start again.`);
    // The bounds as approved, the same card as at the approval.
    expect(await detail.getByTestId('mandate-total').textContent()).toBe('EUR 37.00');
    await check('mandate-active', { whole: true });

    // Cancel at the confirmation: nothing is signed, nothing stops.
    await page.getByTestId('revoke').click();
    const dialog = page.getByTestId('revoke-dialog');
    await dialog.waitFor();
    expect(await dialog.locator('h2').textContent()).toBe('Stop Bill payer from making more payments under this mandate?');
    // The focus starts on Cancel: Enter never stops a mandate by accident.
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.testid)).toBe('revoke-dialog-cancel');
    await page.getByTestId('revoke-dialog-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    expect(await signCount()).toBe(before + 1);
    expect((await served<MandateDetailResponse>(`/mandates/${authReqId}`)).mandate.status).toBe('active');

    // Confirm, then the passkey: revoked.
    await page.getByTestId('revoke').click();
    await page.getByTestId('revoke-dialog-confirm').click();
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('revoked');
    expect(await signCount()).toBe(before + 2);
    expect(await page.getByTestId('mandate-message').textContent()).toBe('Stopped with your passkey.');
    expect(await page.getByTestId('mandate-status').textContent()).toBe('✕ Revoked');
    expect(await page.getByTestId('mandate-revoked-note').textContent()).toMatch(/^Revoked today, \d{2}:\d{2}\. Bill payer can make no more payments under it\./);
    expect(await page.getByTestId('revoke').count()).toBe(0);
    expect(await texts('spend-outcome')).toEqual(['! Failed', '✓ Succeeded']);
    const revoked = await served<MandateDetailResponse>(`/mandates/${authReqId}`);
    expect(revoked).toMatchObject({ mandate: { status: 'revoked', revoked_at: expect.any(String) }, options: {} });
    expect(revoked.options.revoke).toBeUndefined();
    await check('mandate-revoked');

    // The agent's next payment is refused, and the list says it is revoked.
    const refused = await spend(harness, client, token, spendPayment('bill_3'));
    expect([refused.status, refused.body.error]).toEqual([403, 'mandate_revoked']);
    await page.getByTestId('nav-mandates').click();
    await expect.poll(() => item.getAttribute('data-status'), poll).toBe('revoked');
    expect(await item.getByTestId('mandate-status').textContent()).toBe('✕ Revoked');
    expect(await item.getByTestId('remaining').count()).toBe(0);
    expect(app.errors).toEqual([]);
  });

  it('says so plainly when the mandate was stopped elsewhere before the person confirms, and asks for no passkey', async () => {
    const details = mandate(harness.clock.now(), { transaction_id: 'mdt_2' });
    const asked = await bcAuthorize(harness, client, { login_hint: sub, details });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const authReqId = asked.body.auth_req_id as string;
    await page.goto(`${origin}/#/requests/${authReqId}`);
    await page.getByTestId(`code-${asked.body.binding_code}`).click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    await page.goto(`${origin}/#/mandates/${encodeURIComponent(authReqId)}`);
    const detail = page.getByTestId('mandate-screen');
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('active');
    expect(await page.getByTestId('spends-empty').textContent()).toBe('No payments yet.');
    // No count in this one: no "payments left" line.
    expect(await page.getByTestId('spends-left').count()).toBe(0);

    // An operator stops it while the screen is open.
    expect((await harness.admin('POST', `/mandates/${authReqId}/revoke`)).status).toBe(200);
    const signed = await signCount();
    await page.getByTestId('revoke').click();
    await page.getByTestId('revoke-dialog-confirm').click();
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('revoked');
    expect(await page.getByTestId('error').textContent()).toBe('This mandate is not active any more, so there is nothing to stop.');
    expect(await page.getByTestId('error').getAttribute('role')).toBe('alert');
    expect(await signCount()).toBe(signed);
    expect(app.errors).toEqual([]);
  });
});
