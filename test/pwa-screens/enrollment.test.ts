import type { ConsoleMessage } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { enrollmentLink, tabTo, useChromium, VIEWPORTS, waitForServiceWorker, type ViewportName } from '../support/pwa-browser.ts';
import { useScreens } from './support.ts';

// Before and at enrollment: a browser that is not enrolled is told how to get in, and enrollment
// works from the keyboard alone with nothing in the console.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const ui = useScreens(chromium, viewport, { enroll: false });
  const { check, focused } = ui;

  it('tells a browser that is not enrolled how to get in', async () => {
    const { page, origin } = ui;
    await page.goto(`${origin}/`);
    await page.getByTestId('not-enrolled').waitFor();
    expect(await focused()).toBe('h1');
    await check('not-enrolled');
  });

  it('enrolls from the keyboard alone, with nothing in the browser console', async () => {
    const { page, harness } = ui;
    const link = await enrollmentLink(harness, ui.sub, 'Alice Martin');
    // A fresh browser, as a new user's is: only the enrollment page, from the start.
    await page.goto('about:blank');
    const logged: string[] = [];
    const onConsole = (message: ConsoleMessage) => {
      // The test's browser context is off the record, where Chromium says it has no Push API (the
      // inbox, once enrolled, asks for push): a fact of the test set-up, not of the app.
      if (message.text().includes('does not support the Push API in incognito mode')) return;
      if (message.type() === 'error' || message.type() === 'warning') logged.push(`${message.type()}: ${message.text()} (${message.location().url})`);
    };
    page.on('console', onConsole);
    await page.goto(link);
    await page.locator('[data-testid="enroll-screen"][data-link="valid"]').waitFor();
    await check('enroll');
    const path = await tabTo(page, 'enroll-button');
    expect(path).toContain('device-name');
    await page.keyboard.press('Enter');
    await page.getByTestId('inbox-empty').waitFor();
    page.off('console', onConsole);
    expect(logged).toEqual([]);
    expect(await page.getByTestId('flash').textContent()).toContain('Alice Martin');
    await check('inbox-empty');
    await waitForServiceWorker(page);
  });
});
