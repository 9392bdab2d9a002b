import { describe, expect, it } from 'vitest';
import { openAppBrowser, useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { poll, useJourneys } from './support.ts';

// Device management on the customer's phone: rename it, add a second device with a one-time link
// (a third is refused past the cap of two), and remove one.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver’s journeys (%s)', (viewport) => {
  const ui = useJourneys(chromium, viewport);
  const { check, focused } = ui;

  it('renames this device, adds a second one with a one-time link, is refused a third past the cap, and removes one', async () => {
    const { page, phone, reviewer, origin } = ui;
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
    const tablet = await openAppBrowser(chromium.browser, origin, viewport);
    try {
      await tablet.page.goto(link);
      await tablet.page.getByTestId('enroll-button').click();
      await tablet.page.getByTestId('inbox').waitFor();
      expect(await tablet.page.getByTestId('signed-in-as').textContent()).toBe('Cara Customer');
      // Used once: opened again, it is refused.
      const again = await openAppBrowser(chromium.browser, origin, viewport);
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
