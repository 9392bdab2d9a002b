import { expect, describe, it, beforeAll } from 'vitest';
import { ARTIFACTS, axeViolations, STEP_MS, useConsoleScene } from './support.ts';

// Signed in: each action type's sample, a denied and an expired request, a refusal, axe-core, signing out, and 360 px.

describe('the operator console', () => {
  const c = useConsoleScene();

  // Signed in, as the sign-in test of browser-sign-in.test.ts leaves the console, with alice to ask.
  beforeAll(async () => {
    await c.page.goto(`${c.origin}/console`);
    await c.page.getByTestId('token').fill(c.harness.adminToken);
    await c.page.getByTestId('token').press('Enter');
    await c.page.getByTestId('send').waitFor();
    await c.page.getByTestId('login-hint').fill('alice');
  });

  it("sends each action type's sample, built by the server, previews what the person will see, and shows it on the phone", async () => {
    const cases: [string, string, string | null][] = [
      ['deletion', 'Delete 1,200 customer records in crm', 'Cannot be undone'],
      ['message', 'Send email to 12,000 recipients', null],
      ['access_change', 'Change Bo Li from viewer to editor on Payments prod', null],
      ['record_change', 'Change campaign Auto EU (cmp_4): 2 fields', null],
    ];
    for (const [type, title, warning] of cases) {
      const previous = await c.page.getByTestId('watch').getAttribute('data-auth-req-id');
      await c.page.getByTestId('action-type').selectOption(type);
      expect(await c.page.getByTestId('amount').isVisible()).toBe(false);
      await expect.poll(() => c.page.getByTestId('sample-title').textContent()).toBe(title);
      expect(await c.page.getByTestId('sample-warnings').textContent()).toBe(warning ?? '');
      if (type === 'message') {
        // The body as it will be sent, its line breaks kept on screen.
        const body = c.page.getByTestId('sample-fields').locator('dd').nth(4);
        expect(await body.textContent()).toBe('Hello,\n\nOur prices change on 1 January.\nThe new prices are on our website.\n\nThe ACME team');
        expect(await body.evaluate((element) => getComputedStyle(element).whiteSpace)).toBe('pre-wrap');
        // With the preview shown (its warning list empty here, a deletion's below), axe finds nothing.
        expect(await axeViolations(c.page), `${type} preview`).toEqual([]);
      }
      await c.page.getByTestId('send').click();
      await expect.poll(() => c.page.getByTestId('watch').getAttribute('data-auth-req-id'), { timeout: STEP_MS }).not.toBe(previous);
      await expect.poll(c.state, { timeout: STEP_MS }).toBe('pending');
      const id = (await c.page.getByTestId('watch').getAttribute('data-auth-req-id'))!;

      const view = await c.harness.call('GET', `/api/device/requests/${id}`, { headers: { cookie: c.alice.cookie } });
      expect(view.body.request.actions).toHaveLength(1);
      const [action] = view.body.request.actions;
      expect([action.type, action.title]).toEqual([type, title]);
      expect(await c.page.getByTestId('watch').textContent()).toContain(action.summary);
      if (warning) {
        await expect.poll(() => c.page.getByTestId('watch').textContent()).toContain(warning);
        expect(await axeViolations(c.page), `${type} preview`).toEqual([]);
      }
      await c.page.screenshot({ path: `${ARTIFACTS}/console-sample-${type}.png`, fullPage: true });
      // The preview was the phone's display, but for the transaction id, new for each send.
      expect(await c.page.getByTestId('sample-fields').locator('dd').allTextContents()).toEqual(action.fields.filter((field: { label: string }) => field.label !== 'Transaction').map((field: { value: string }) => field.value));
      const stored = (await c.harness.admin('GET', `/requests/${id}`)).body.request;
      expect(stored.authorization_details[0].transaction_id).toMatch(/^[a-z]{3}_console_[A-Za-z0-9_-]{16}$/);
      // Deletions and messages are irreversible and reach many: number matching, and the console shows the agent's code.
      if (type === 'deletion' || type === 'message') await expect.poll(() => c.page.getByTestId('watch').textContent()).toMatch(/Code to show the person\d{2}/);
      // Denied, so the console client's pending places stay free for the tests after this one.
      expect((await c.harness.decide(c.alice, id, 'deny')).status).toBe(200);
      await expect.poll(c.state, { timeout: STEP_MS }).toBe('denied');
    }
    await c.page.getByTestId('action-type').selectOption('payment');
    expect(await c.page.getByTestId('sample-preview').isVisible()).toBe(false);
  });

  it('follows a denied request, and one that expires', async () => {
    // The watch still shows the previous test's request, pending too: wait for the new one.
    const previous = await c.page.getByTestId('watch').getAttribute('data-auth-req-id');
    await c.page.getByTestId('send').click();
    await expect.poll(() => c.page.getByTestId('watch').getAttribute('data-auth-req-id'), { timeout: STEP_MS }).not.toBe(previous);
    await expect.poll(c.state, { timeout: STEP_MS }).toBe('pending');
    const denied = (await c.page.getByTestId('watch').getAttribute('data-auth-req-id'))!;
    expect((await c.harness.decide(c.alice, denied, 'deny')).status).toBe(200);
    await expect.poll(c.state, { timeout: STEP_MS }).toBe('denied');

    await c.page.getByTestId('expiry').fill('30');
    await c.page.getByTestId('send').click();
    await expect.poll(() => c.page.getByTestId('watch').getAttribute('data-auth-req-id')).not.toBe(denied);
    await expect.poll(c.state, { timeout: STEP_MS }).toBe('pending');
    c.harness.clock.advance(31);
    await expect.poll(c.state, { timeout: STEP_MS }).toBe('expired');
    await expect.poll(c.timeline).toContain('expired');
  });

  it("shows the server's refusal of a request it cannot send", async () => {
    await c.page.getByTestId('login-hint').fill('nobody');
    await c.page.getByTestId('send').click();
    await expect.poll(() => c.page.getByTestId('send-error').textContent()).toContain('unknown_user_id');
  });

  it('passes axe-core at a desktop and a phone viewport, signed out and signed in, in both colour schemes', async () => {
    // Signed in, watching a request, with a refusal shown: the console at its fullest.
    expect(await axeViolations(c.page)).toEqual([]);
    for (const colorScheme of ['light', 'dark'] as const) {
      const phone = await c.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2, colorScheme, locale: 'en-GB' });
      try {
        const small = await phone.newPage();
        await small.goto(`${c.origin}/console`);
        await small.getByTestId('sign-in').waitFor();
        expect(await axeViolations(small), `sign-in (${colorScheme})`).toEqual([]);
        await small.getByTestId('token').fill(c.harness.adminToken);
        await small.getByTestId('sign-in-button').click();
        await small.getByTestId('send').waitFor();
        await small.getByTestId('login-hint').fill('alice');
        await small.getByTestId('send').click();
        await small.getByTestId('watch-state').waitFor();
        await expect.poll(() => small.getByTestId('watch-state').getAttribute('data-state'), { timeout: STEP_MS }).toBe('pending');
        expect(await axeViolations(small), `signed in (${colorScheme})`).toEqual([]);
        // A sample's preview, with its warning: what the operator checks before sending.
        await small.getByTestId('action-type').selectOption('deletion');
        await expect.poll(() => small.getByTestId('sample-warnings').textContent()).toBe('Cannot be undone');
        expect(await axeViolations(small), `deletion sample (${colorScheme})`).toEqual([]);
        await small.screenshot({ path: `${ARTIFACTS}/console-phone-sample-${colorScheme}.png`, fullPage: true });
        await small.getByTestId('action-type').selectOption('payment');
        await small.screenshot({ path: `${ARTIFACTS}/console-phone-${colorScheme}.png` });
      } finally {
        await phone.close();
      }
    }
  });

  it('signs out and forgets the token', async () => {
    await c.page.getByTestId('sign-out').click();
    await c.page.getByTestId('sign-in').waitFor();
    expect(await c.page.evaluate(() => sessionStorage.length)).toBe(0);
    expect(await c.cspViolations()).toEqual([]);
    expect(c.pageErrors).toEqual([]);
  });

  it('works at 360 px without horizontal scrolling', async () => {
    const small = await c.context.newPage();
    await small.setViewportSize({ width: 360, height: 740 });
    await small.goto(`${c.origin}/console`);
    await small.getByTestId('token').fill(c.harness.adminToken);
    await small.getByTestId('sign-in-button').click();
    await small.getByTestId('send').waitFor();
    expect(await small.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(360);
    await small.close();
  });
});
