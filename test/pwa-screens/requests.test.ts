import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { tabTo, useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { toolCall } from '../support/tool-call.ts';
import { LONG_BINDING, LONG_PAYMENT, poll, useScreens } from './support.ts';

// A request's screens: the inbox and a request opened from the keyboard, deny from the keyboard,
// approve, a console's test request, a tool call's arguments, and an expired request.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const ui = useScreens(chromium, viewport);
  const { ask, check, focused } = ui;

  it('shows a new request in the inbox and opens it from the keyboard, with the focus on its title', async () => {
    const { page } = ui;
    const asked = await ask(LONG_PAYMENT, { binding_message: LONG_BINDING });
    const item = page.locator(`[data-testid="inbox-item"][data-auth-req-id="${asked.auth_req_id}"]`);
    await item.waitFor();
    await check('inbox');
    await tabTo(page, 'inbox-item');
    await page.keyboard.press('Enter');
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    // Approve is never focused by default: Enter on arrival must not approve.
    expect(await focused()).toBe('request-title');
    expect(await screen.getByTestId('amount').textContent()).toBe('EUR 999.99');
    // One notation only: the code form, never the symbol form beside it.
    const text = await screen.innerText();
    expect(text).not.toContain('€');
    // Once large, besides the server's headline (`Pay EUR 999.99 to …`).
    expect(text.match(/EUR 999\.99/g)).toHaveLength(2);
    expect(await screen.getByTestId('request-title').textContent()).toContain('EUR 999.99');
    await check('request');
  });

  it('reaches Deny before Approve from the keyboard, and denies', async () => {
    const { page, agent } = ui;
    // The long request open, the focus on its title, as the inbox opens it.
    await ui.openAsked(LONG_PAYMENT, { binding_message: LONG_BINDING });
    const path = await tabTo(page, 'approve');
    expect(path.indexOf('deny')).toBeGreaterThanOrEqual(0);
    expect(path.indexOf('deny')).toBeLessThan(path.indexOf('approve'));
    // The focused button shows where the focus is.
    expect(await page.getByTestId('approve').evaluate((button) => getComputedStyle(button).outlineStyle)).toBe('solid');
    await page.keyboard.press('Shift+Tab');
    expect(await focused()).toBe('deny');
    await page.keyboard.press('Enter');
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
    const id = await page.getByTestId('request-screen').getAttribute('data-auth-req-id');
    expect(await agent.pollToken(id!)).toEqual({ status: 'denied' });
    await check('denied');
  });

  it('approves with the passkey', async () => {
    const { page, origin } = ui;
    const asked = await ask(undefined, { binding_message: 'Order 1042' });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    await expect.poll(() => page.getByTestId('request-screen').getAttribute('data-state'), poll).toBe('pending');
    // The server's verb for the action, not a word of the app's own.
    expect(await page.getByTestId('approve').textContent()).toBe('Pay');
    // An agent's request is not a test.
    expect(await page.getByTestId('test-badge').count()).toBe(0);
    await page.getByTestId('approve').click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    await check('approved');
  });

  it('marks a request the console sent as a test, in the inbox and on the request, in both colour schemes', async () => {
    const { page, harness, origin } = ui;
    const created = await harness.admin('POST', '/test-requests', { login_hint: ui.sub, sample: 'payment' });
    expect(created.status).toBe(201);
    const id = created.body.auth_req_id as string;
    await page.goto(`${origin}/#/`);
    const item = page.locator(`[data-testid="inbox-item"][data-auth-req-id="${id}"]`);
    await item.waitFor();
    expect(await item.getByTestId('test-badge').textContent()).toBe('Test request');
    await page.goto(`${origin}/#/requests/${id}`);
    await expect.poll(() => page.getByTestId('request-screen').getAttribute('data-auth-req-id'), poll).toBe(id);
    expect(await page.getByTestId('client-name').textContent()).toBe('Countersign console (test)');
    const badge = page.getByTestId('request-screen').getByTestId('test-badge');
    expect(await badge.isVisible()).toBe(true);
    expect(await badge.textContent()).toBe('Test request');
    await check('request-test');
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await check('request-test-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
    await page.getByTestId('deny').click();
    await page.locator('[data-testid="result"][data-result="denied"]').waitFor();
  });

  it('shows a tool call: server, tool, each argument nested, a long string folded with all of it one key press away', async () => {
    const { page, origin, agent } = ui;
    const observations = `${'Met at the conference in Lyon, talked about graph databases and the migration plan. '.repeat(6)}Zoë — 東京 ✓`;
    const details = toolCall({
      transaction_id: `mcp_${randomBytes(6).toString('hex')}`,
      annotations: { title: 'Delete Entities', destructiveHint: true },
      arguments: { entityNames: ['Alice', 'Zoë'], options: { cascade: true, ratio: 1.5 }, observations },
    });
    const asked = await ask(details, { binding_message: 'delete_entities' });
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    expect(await screen.getByTestId('server').textContent()).toBe('memory');
    expect(await screen.getByTestId('tool').textContent()).toBe('delete_entities (Delete Entities)');
    const args = screen.getByTestId('field-arguments');
    expect(await args.locator('[data-name="entityNames"] li').allTextContents()).toEqual(['Alice', 'Zoë']);
    expect(await args.locator('[data-name="options"] [data-name="ratio"] dd').textContent()).toBe('1.5');
    const folded = args.locator('[data-name="observations"] [data-testid="arg-text"]');
    expect(await folded.textContent()).toMatch(/…$/);
    await check('request-tool-call');
    // The full text: a real button, reached with Tab (before the decision bar) and pressed with Enter.
    const path = await tabTo(page, 'show-all');
    expect(path).not.toContain('approve');
    expect(await page.getByTestId('show-all').getAttribute('aria-expanded')).toBe('false');
    await page.keyboard.press('Enter');
    expect(await folded.textContent()).toBe(observations);
    expect(await page.getByTestId('show-all').getAttribute('aria-expanded')).toBe('true');
    await check('request-tool-call-expanded');
    await page.getByTestId('approve').click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    const polled = await agent.pollToken(asked.auth_req_id);
    expect(polled.status === 'approved' && polled.token.authorization_details).toEqual(details);
  });

  it('shows an expired request as expired, with nothing to press', async () => {
    const { page, harness, origin } = ui;
    const asked = await ask(undefined, { requested_expiry: 60 });
    harness.clock.advance(61);
    await page.goto(`${origin}/#/requests/${asked.auth_req_id}`);
    await page.locator('[data-testid="result"][data-result="expired"]').waitFor();
    expect(await page.getByTestId('decision-bar').count()).toBe(0);
    expect(await page.getByTestId('result-headline').textContent()).toContain('Expired');
    await check('expired');
  });
});
