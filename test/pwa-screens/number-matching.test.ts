import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { enrollmentLink, openAppBrowser, tabTo, useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { payment } from '../support/payment.ts';
import { LONG_BINDING, poll, useScreens } from './support.ts';

// Number matching (a code picked from the keyboard, "this wasn't me" asked first), and a finance
// reviewer's view of a high-value request while the customer waits for it.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const ui = useScreens(chromium, viewport);
  const { ask, check, focused } = ui;

  it('shows number matching: three codes in the server’s order, one picked from the keyboard', async () => {
    const { page, origin, agent } = ui;
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
    const { page, harness, origin } = ui;
    const reviewerSub = `rita-${viewport}`;
    const reviewer = await openAppBrowser(chromium.browser, origin, viewport);
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
});
