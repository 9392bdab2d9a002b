import { readdir, readFile } from 'node:fs/promises';
import { PWA_DIST } from '@countersign/server';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { appServiceWorker, enrollmentLink, launchChromium, openAppBrowser, screenshot, STEP_MS, VIEWPORTS, waitForServiceWorker, widthAt360, type AppBrowser, type ViewportName } from './support/pwa-browser.ts';

const poll = { timeout: STEP_MS, interval: 50 };

describe('the service worker precaches the app shell the build lists', () => {
  it('lists every built file but the worker itself, and names the cache after their digest', async () => {
    const files = (await readdir(PWA_DIST, { recursive: true, withFileTypes: true })).filter((entry) => entry.isFile()).map((entry) => `${entry.parentPath.slice(PWA_DIST.length - 1)}/${entry.name}`.replace(/\/+/g, '/'));
    const sw = await readFile(`${PWA_DIST}sw.js`, 'utf8');
    expect(sw).not.toContain('__COUNTERSIGN_PRECACHE_MANIFEST__');
    const shell = files.filter((file) => file !== '/sw.js');
    expect(shell).toEqual(expect.arrayContaining(['/index.html', '/manifest.webmanifest', '/icons/icon-192.png', '/icons/icon-maskable-512.png']));
    expect(shell.some((file) => /^\/assets\/main-[\w-]+\.js$/.test(file))).toBe(true);
    expect(shell.some((file) => /^\/assets\/main-[\w-]+\.css$/.test(file))).toBe(true);
    for (const file of shell) expect(sw, `${file} is precached`).toContain(`\\"${file}\\"`);
    expect(sw).toMatch(/\\"version\\":\\"[0-9a-f]{16}\\"/);
  });
});

describe('the web app manifest makes the app installable', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness();
  });
  afterAll(() => harness?.close());

  it('is standalone, themed, and has icons of the sizes it claims, a maskable one among them', async () => {
    const manifest = await harness.call('GET', '/manifest.webmanifest');
    expect(manifest.status).toBe(200);
    expect(manifest.body).toMatchObject({ name: 'Countersign', start_url: '/', scope: '/', display: 'standalone', theme_color: expect.stringMatching(/^#[0-9a-f]{6}$/i) });
    const icons = manifest.body.icons as Array<{ src: string; sizes: string; type: string; purpose: string }>;
    expect(icons.some((icon) => icon.purpose.split(' ').includes('maskable'))).toBe(true);
    expect(icons.some((icon) => icon.sizes === '192x192') && icons.some((icon) => icon.sizes === '512x512')).toBe(true);
    for (const icon of icons) {
      const response = await harness.app.request(`${harness.issuer}${icon.src}`);
      expect(response.status).toBe(200);
      const png = Buffer.from(await response.arrayBuffer());
      // PNG signature, then IHDR's width and height (PNG §11.2.2).
      expect(png.subarray(1, 4).toString('ascii')).toBe('PNG');
      expect(`${png.readUInt32BE(16)}x${png.readUInt32BE(20)}`).toBe(icon.sizes);
    }
    const html = await (await harness.app.request(`${harness.issuer}/`)).text();
    expect(html).toContain('<link rel="manifest" href="/manifest.webmanifest" />');
    expect(html).toMatch(/<meta name="theme-color" content="#[0-9a-f]{6}"/i);
  });
});

/**
 * The offline shell in Chromium: once the worker has installed, the app opens with no network
 * at all, from its cache, and says plainly that it is offline; when the network is back it
 * carries on by itself.
 */
describe.each(Object.keys(VIEWPORTS) as ViewportName[])('the app offline (%s)', (viewport) => {
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let app: AppBrowser;

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    browser = await launchChromium();
    app = await openAppBrowser(browser, origin, viewport);
  });

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  it('installs the shell into a versioned cache and deletes the caches of other versions', async () => {
    const { page, context } = app;
    // A page of the origin that does not start the app: leave a stale shell cache and someone else's.
    await page.goto(`${origin}/manifest.webmanifest`);
    await page.evaluate(async () => {
      await (await caches.open('countersign-shell-0000000000000000')).put('/index.html', new Response('old shell'));
      await (await caches.open('someone-else')).put('/x', new Response('x'));
    });

    await page.goto(await enrollmentLink(harness, `olive-${viewport}`, 'Olive Offline'));
    await page.getByTestId('enroll-button').click();
    await page.getByTestId('inbox').waitFor();
    await waitForServiceWorker(page);

    const worker = await appServiceWorker(context, origin);
    const version = await worker.evaluate(() => (self as unknown as { __countersign: { version: string } }).__countersign.version);
    await expect.poll(() => page.evaluate(() => caches.keys()), poll).toEqual(expect.arrayContaining([`countersign-shell-${version}`, 'someone-else']));
    const stored = await page.evaluate(async () => {
      const names = await caches.keys();
      const shell = names.find((name) => name.startsWith('countersign-shell-'))!;
      const urls = (await (await caches.open(shell)).keys()).map((request) => new URL(request.url).pathname);
      return { names: names.sort(), urls };
    });
    expect(stored.names).toEqual([`countersign-shell-${version}`, 'someone-else']);
    expect(stored.urls).toEqual(expect.arrayContaining(['/index.html', '/manifest.webmanifest', '/icons/icon-192.png']));
    // The API is never cached, though the app has called it by now.
    expect(stored.urls.filter((url) => url.startsWith('/api/'))).toEqual([]);
  });

  it('opens offline from the cache and says that it is offline', async () => {
    const { page, context } = app;
    await context.setOffline(true);
    const reloaded = await page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    await page.getByTestId('load-error').waitFor();
    // The shell is there: the app bar, the styles (the header is laid out as a bar), the app's script.
    expect(await page.locator('.brand').textContent()).toContain('Countersign');
    expect(await page.locator('.app-bar').evaluate((bar) => getComputedStyle(bar).display)).toBe('flex');
    expect(await page.getByTestId('offline-banner').textContent()).toContain("You're offline");
    expect(await page.locator('[data-testid="load-error"] h1').textContent()).toBe("You're offline");
    expect(await page.getByTestId('load-error').getAttribute('data-offline')).not.toBeNull();
    expect(await page.title()).toContain('Offline');
    expect((await widthAt360(page)).scrollWidth).toBeLessThanOrEqual(360);
    await screenshot(page, 'offline', viewport);
  });

  it('carries on by itself when the network is back', async () => {
    const { page, context } = app;
    await context.setOffline(false);
    await page.getByTestId('inbox').waitFor();
    await expect.poll(() => page.getByTestId('offline-banner').count(), poll).toBe(0);
  });

  it('says so when the connection drops while the app is open', async () => {
    const { page, context } = app;
    await context.setOffline(true);
    await page.getByTestId('offline-banner').waitFor();
    // Opening the inbox now cannot load it: it says why, and no longer that it is loading.
    await page.goto(`${origin}/#/history`);
    await page.goto(`${origin}/#/`);
    await page.getByTestId('inbox').getByTestId('error').waitFor();
    expect(await page.getByTestId('inbox').innerText()).toContain("Can't reach Countersign");
    await expect.poll(() => page.getByTestId('inbox').innerText(), poll).not.toContain('Loading requests');
    expect(await page.getByTestId('inbox').locator('[aria-busy]').count()).toBe(0);
    await context.setOffline(false);
    await expect.poll(() => page.getByTestId('offline-banner').count(), poll).toBe(0);
    expect(app.errors).toEqual([]);
  });
});
