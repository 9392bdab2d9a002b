import { describe, expect, it } from 'vitest';
import { useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { ELEVATED, useJourneys } from './support.ts';

// Number matching on an elevated request: the first wrong pick denies it and says what to do; the
// code the agent shows approves it (the README's number-matching screenshot comes from here).

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver’s journeys (%s)', (viewport) => {
  const ui = useJourneys(chromium, viewport);
  const { ask, check, focused, open } = ui;

  it('denies an elevated request at the first wrong pick, and says plainly what happened and what to do', async () => {
    const { page, agent } = ui;
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
    const { page, agent } = ui;
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
    await ui.keepForReadme('number-matching', 'approval-number-matching');

    await page.getByTestId(`code-${code}`).click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    expect(await focused()).toBe('result');
    expect((await agent.pollToken(asked.auth_req_id)).status).toBe('approved');
    await check('approved');
  });
});
