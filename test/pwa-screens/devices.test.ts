import { describe, expect, it } from 'vitest';
import { tabTo, useChromium, VIEWPORTS, type ViewportName } from '../support/pwa-browser.ts';
import { useScreens } from './support.ts';

// The devices and an add-device link, the offline screen, and an unknown link.

const chromium = useChromium();

describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the approver screens (%s)', (viewport) => {
  const ui = useScreens(chromium, viewport);
  const { check, focused } = ui;

  it('shows the devices and a link to add another', async () => {
    const { page, origin } = ui;
    await page.goto(`${origin}/#/devices`);
    await page.getByTestId('device-item').waitFor();
    await check('devices');
    await tabTo(page, 'add-device');
    await page.keyboard.press('Enter');
    await page.getByTestId('enrollment').waitFor();
    expect(await focused()).toBe('enrollment-link');
    await check('devices-add');
    // Reduced motion: no colour transition half-way through while axe measures the contrast.
    await page.emulateMedia({ colorScheme: 'dark', reducedMotion: 'reduce' });
    await check('devices-add-dark');
    await page.emulateMedia({ colorScheme: 'light', reducedMotion: 'no-preference' });
  });

  it('says plainly that it is offline', async () => {
    const { page, origin, app } = ui;
    // The devices screen, reloaded offline.
    await page.goto(`${origin}/#/devices`);
    await page.getByTestId('device-item').waitFor();
    await app.context.setOffline(true);
    try {
      await page.reload();
      await page.locator('[data-testid="load-error"][data-offline]').waitFor();
      await page.getByTestId('offline-banner').waitFor();
      await check('offline');
    } finally {
      await app.context.setOffline(false);
    }
    await page.getByTestId('devices-screen').waitFor();
  });

  it('says when a link leads nowhere', async () => {
    const { page, origin, app } = ui;
    await page.goto(`${origin}/#/no/such/page`);
    await page.getByTestId('not-found').waitFor();
    await check('not-found');
    expect(app.errors).toEqual([]);
  });
});
