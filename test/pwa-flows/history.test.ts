import { describe, expect, it } from 'vitest';
import { answer, device } from '../guarantees/policy-support.ts';
import { useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { ELEVATED, HIGH, poll, useJourneys } from './support.ts';

// The history on the customer's phone, newest first: the five decisions the other journeys make
// (a wrong code, an approval by code, a denial, "this wasn't me", a reviewed approval executed),
// made here through the device API with a second, software passkey of the same person and of the
// reviewer (the README's history screenshot comes from here).

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver’s journeys (%s)', (viewport) => {
  const ui = useJourneys(chromium, viewport);
  const { ask, check } = ui;

  /** The journeys' five decisions, oldest first, one second apart so "newest first" has one answer. */
  async function decideFive(): Promise<void> {
    const { harness, agent, otherAgent } = ui;
    const customer = await harness.enrollUser(ui.customer);
    const reviewer = await harness.enrollUser(ui.reviewerSub);
    const later = () => harness.clock.advance(1);

    const wrongPick = await ask(ELEVATED, agent, { binding_message: 'Order 2076' });
    const codes = Object.keys((await device(harness, customer, 'GET', `/requests/${wrongPick.auth_req_id}`)).body.options.approve_by_code);
    const wrong = codes.find((code) => code !== wrongPick.binding_code)!;
    expect((await answer(harness, customer, wrongPick.auth_req_id, { decision: 'approve', code: wrong })).body.error).toBe('wrong_binding_code');
    later();
    const byCode = await ask(ELEVATED, agent, { binding_message: 'Order 2077' });
    expect((await answer(harness, customer, byCode.auth_req_id, { decision: 'approve', code: byCode.binding_code! })).status).toBe(200);
    later();
    const denied = await ask();
    expect((await answer(harness, customer, denied.auth_req_id, { decision: 'deny' })).status).toBe(200);
    later();
    const reported = await ask(49_000, otherAgent);
    expect((await answer(harness, customer, reported.auth_req_id, { decision: 'deny', path: 'report' })).status).toBe(200);
    later();
    const reviewed = await ask(HIGH);
    expect((await answer(harness, customer, reviewed.auth_req_id, { decision: 'approve', code: reviewed.binding_code! })).status).toBe(200);
    expect((await answer(harness, reviewer, reviewed.auth_req_id, { decision: 'approve' })).status).toBe(200);
    const polled = await agent.pollToken(reviewed.auth_req_id);
    if (polled.status !== 'approved') throw new Error(polled.status);
    const redemption = await agent.redeem(polled.token.access_token, reviewed.details);
    await agent.reportOutcome(redemption.redemption_id, { status: 'succeeded', reference: 'wire_9001' });
    // A redemption and an outcome write the history in the background.
    await harness.deps.background.drain();
  }

  it('shows the history of decisions and their outcomes, newest first', async () => {
    const { page } = ui;
    await decideFive();
    await page.goto(`${ui.origin}/#/`);
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
    await ui.keepForReadme('history', 'history');
    // The details open from the keyboard.
    await items.nth(0).getByTestId('history-more').focus();
    await page.keyboard.press('Enter');
    await expect.poll(() => items.nth(0).locator('details').getAttribute('open'), poll).not.toBeNull();
    expect(await items.nth(0).getByTestId('payee').textContent()).toBe('ACME Ltd (acct_77)');
    await check('history-details');
  });
});
