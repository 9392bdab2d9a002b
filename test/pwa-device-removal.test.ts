import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from './support/harness.ts';
import { expectAccessibleInBothSchemes } from './support/pwa-axe.ts';
import { servedHarness } from './support/served-harness.ts';
import { enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, VIEWPORTS, widthAt360, type AppBrowser, type ViewportName } from './support/pwa-browser.ts';

const poll = { timeout: STEP_MS, interval: 50 };

/**
 * A device removed while the PWA is open on the person's other devices, in Chromium against the
 * real server: an operator revokes the lost "Pixel"; the laptop's inbox shows a banner at once (no
 * reload, no push), and the Pixel's own app goes to "This device was removed" instead of erroring.
 */
describe.each(Object.keys(VIEWPORTS) as ViewportName[])('a device removed while the app is open (%s)', (viewport) => {
  const sub = `fay-${viewport}`;
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let laptop: AppBrowser;
  let pixel: AppBrowser;

  beforeAll(async () => {
    ({ harness, origin } = await servedHarness());
    browser = await launchChromium();
    [laptop, pixel] = [await openAppBrowser(browser, origin, viewport), await openAppBrowser(browser, origin, viewport)];
  });
  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  /** Enrolls the browser as one of the person's devices, under `name`, through the enrollment screen; leaves it on the inbox. */
  async function enroll(app: AppBrowser, name: string): Promise<void> {
    await app.page.goto(await enrollmentLink(harness, sub, 'Fay Okafor'));
    await app.page.getByTestId('device-name').fill(name);
    await app.page.getByTestId('enroll-button').click();
    await app.page.getByTestId('inbox-empty').waitFor();
  }

  /** The device id of the person's device named `name`, as the operator lists them. */
  async function deviceId(name: string): Promise<string> {
    const { body } = await harness.admin('GET', `/users/${sub}/devices`);
    return body.devices.find((device: { name: string }) => device.name === name).device_id;
  }

  it('shows the open inbox of the other device a banner at once, and signs the removed device out', async () => {
    await enroll(laptop, 'Laptop');
    await enroll(pixel, 'Pixel');
    // Marks on both pages: still there afterwards means neither page was reloaded.
    for (const app of [laptop, pixel]) await app.page.evaluate(() => Object.assign(window, { unreloaded: true }));
    expect(await laptop.page.getByTestId('device-removed').count()).toBe(0);

    const revoked = await harness.admin('DELETE', `/users/${sub}/devices/${await deviceId('Pixel')}`);
    expect(revoked.status).toBe(200);

    const banner = laptop.page.getByTestId('device-removed');
    await banner.waitFor();
    expect(await banner.locator('p').textContent()).toBe('Your device "Pixel" was removed by an administrator. If this is unexpected, contact them.');
    expect(await laptop.page.getByTestId('device-removals').getAttribute('role')).toBe('status');
    expect(await laptop.page.evaluate(() => (window as { unreloaded?: boolean }).unreloaded)).toBe(true);
    await expectAccessibleInBothSchemes(laptop.page, 'inbox with a device removed');
    expect((await widthAt360(laptop.page)).overflowing).toEqual([]);
    await screenshot(laptop.page, 'inbox-device-removed', viewport);

    // The Pixel's app, open on its inbox, goes to its signed-out state, and says why.
    const removedHere = pixel.page.locator('[data-testid="not-enrolled"][data-removed-by="operator"]');
    await removedHere.waitFor();
    expect(await removedHere.locator('h1').textContent()).toBe('This device was removed');
    expect(await pixel.page.getByTestId('device-removed-here').textContent()).toContain('An administrator removed this device from your account');
    expect(await pixel.page.evaluate(() => (window as { unreloaded?: boolean }).unreloaded)).toBe(true);
    await expectAccessibleInBothSchemes(pixel.page, 'device removed here');
    await screenshot(pixel.page, 'device-removed-here', viewport);
    // Reloaded, it is a browser that is not enrolled, as any other.
    await pixel.page.reload();
    await pixel.page.locator('[data-testid="not-enrolled"]:not([data-removed-by])').waitFor();

    expect(laptop.errors).toEqual([]);
    expect(pixel.errors).toEqual([]);
  });

  it('keeps the banner across screens until the person dismisses it, and lists the device no more', async () => {
    const { page } = laptop;
    await page.getByTestId('nav-devices').click();
    await page.getByTestId('devices-screen').waitFor();
    await expect.poll(() => page.getByTestId('device-name').allTextContents(), poll).toEqual(['Laptop']);
    await page.getByTestId('nav-inbox').click();
    await page.getByTestId('device-removed').waitFor();
    await page.getByTestId('dismiss-device-removed').click();
    await expect.poll(() => page.getByTestId('device-removed').count(), poll).toBe(0);
    expect(await page.evaluate(() => document.activeElement?.tagName)).toBe('H1');
    expect(laptop.errors).toEqual([]);
  });
  it('tells the device the person removed from another one, and shows the remover no banner', async () => {
    // The signed-out browser comes back with a new link, as its screen says.
    await enroll(pixel, 'Tablet');
    const { page } = laptop;
    await page.getByTestId('nav-devices').click();
    const tablet = page.locator('[data-testid="device-item"]', { hasText: 'Tablet' });
    await tablet.getByTestId('remove-device').click();
    await page.getByTestId('remove-dialog-confirm').click();
    await expect.poll(() => page.getByTestId('device-name').allTextContents(), poll).toEqual(['Laptop']);

    await pixel.page.locator('[data-testid="not-enrolled"][data-removed-by="person"]').waitFor();
    expect(await pixel.page.getByTestId('device-removed-here').textContent()).toBe('This device was removed from your account on one of your devices, so it can no longer approve anything.');
    await page.getByTestId('nav-inbox').click();
    await page.getByTestId('inbox-empty').waitFor();
    expect(await page.getByTestId('device-removed').count()).toBe(0);
    expect([laptop.errors, pixel.errors]).toEqual([[], []]);
  });
});
