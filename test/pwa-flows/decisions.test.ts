import { CountersignError } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { HIGH, poll, useJourneys } from './support.ts';

// Denying, "this wasn't me" (after which the same agent is refused for that person), and a finance
// reviewer approving a high-value request after the customer, followed to its executed outcome.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver’s journeys (%s)', (viewport) => {
  const ui = useJourneys(chromium, viewport);
  const { ask, check, focused, open, result } = ui;

  it('denies a request', async () => {
    const { page, agent } = ui;
    const asked = await ask();
    await open(asked.auth_req_id);
    expect(await page.getByTestId('tier').textContent()).toContain('Standard');
    await page.getByTestId('deny').click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    await check('denied');
  });

  it('says “this wasn’t me”: confirms, denies with the passkey, and the agent is refused from then on', async () => {
    const { page, otherAgent } = ui;
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
    const { page, agent } = ui;
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

    const review = ui.reviewer.page;
    await review.goto(`${ui.origin}/#/`);
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
});
