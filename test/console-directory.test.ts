import { AxeBuilder } from '@axe-core/playwright';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { launchChromium, STEP_MS } from './support/pwa-browser.ts';

/**
 * The operator console's clients and users (docs/operator-tools.md) in headless Chromium against the real
 * server: search and page through both lists, disable a client and give it a new secret, revoke a
 * user's device. Each step is checked through the admin API as well as on the page.
 */
describe('the operator console: clients and users', () => {
  let harness: Harness;
  let origin: string;
  let browser: Browser;
  let page: Page;
  const pageErrors: Error[] = [];
  const clientIds: string[] = [];

  beforeAll(async () => {
    const port = await freePort();
    origin = `http://localhost:${port}`;
    harness = await createHarness({ publicUrl: origin });
    await harness.listen(port);
    // 55 clients: more than one page (50) of the list.
    for (let i = 0; i < 55; i++) clientIds.push((await harness.createClient(`Agent ${String(i).padStart(2, '0')}`)).client_id);
    await harness.enrollUser('dora');
    await harness.enrollUser('dora');
    await harness.admin('POST', '/users', { sub: 'dmitri', display_name: 'Dmitri Ops' });
    browser = await launchChromium();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, locale: 'en-GB' });
    context.setDefaultTimeout(STEP_MS);
    page = await context.newPage();
    page.on('pageerror', (error) => pageErrors.push(error));
    // The destructive buttons ask first; the operator says yes.
    page.on('dialog', (dialog) => void dialog.accept());
    await page.goto(`${origin}/console`);
    await page.getByTestId('token').fill(harness.adminToken);
    await page.getByTestId('sign-in-button').click();
    await page.getByTestId('clients').locator('li').first().waitFor();
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await harness?.close();
  });

  const clientRows = () => page.locator('[data-testid="clients"] li').evaluateAll((items) => items.map((item) => item.getAttribute('data-client-id')));

  it('lists the clients a page at a time, and searches them', async () => {
    const sorted = [...clientIds].sort();
    // The console's own client is in the tenant's list too once it sent a test request; here it did not.
    await expect.poll(clientRows).toEqual(sorted.slice(0, 50));
    await page.getByTestId('clients-more').click();
    await expect.poll(clientRows).toEqual(sorted);
    expect(await page.getByTestId('clients-more').isHidden()).toBe(true);

    await page.getByTestId('clients-q').fill('agent 07');
    await page.getByTestId('clients-search').click();
    await expect.poll(clientRows).toEqual([clientIds[7]]);
  });

  it('disables a client, enables it again, and shows a new secret once', async () => {
    const row = page.locator(`[data-client-id="${clientIds[7]}"]`);
    await row.getByRole('button', { name: 'Disable Agent 07' }).click();
    await expect.poll(() => row.getAttribute('data-status')).toBe('disabled');
    expect((await harness.admin('GET', `/clients/${clientIds[7]}`)).body.disabled).toBe(true);
    await page.locator(`[data-client-id="${clientIds[7]}"]`).getByRole('button', { name: 'Enable Agent 07' }).click();
    await expect.poll(() => page.locator(`[data-client-id="${clientIds[7]}"]`).getAttribute('data-status')).toBe('active');
    expect((await harness.admin('GET', `/clients/${clientIds[7]}`)).body.disabled).toBe(false);

    await page.locator(`[data-client-id="${clientIds[7]}"]`).getByRole('button', { name: 'New secret for Agent 07' }).click();
    const secret = await page.getByTestId('client-secret-value').textContent();
    expect(secret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const basic = `Basic ${Buffer.from(`${clientIds[7]}:${secret}`).toString('base64')}`;
    const token = await harness.call('POST', '/token', { body: 'grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=unknown_request_id_0000', headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic } });
    expect(token.body.error).toBe('invalid_grant');
  });

  it("searches users, shows a user's devices and revokes one", async () => {
    await page.getByTestId('users-q').fill('dora');
    await page.getByTestId('users-search').click();
    await expect.poll(() => page.locator('[data-testid="users"] li').evaluateAll((items) => items.map((item) => item.getAttribute('data-sub')))).toEqual(['dora']);
    await page.getByRole('button', { name: 'Devices of dora' }).click();
    const devices = () => page.locator('[data-testid="device-list"] li').evaluateAll((items) => items.map((item) => item.getAttribute('data-device-id')));
    await expect.poll(async () => (await devices()).length).toBe(2);
    const [first, second] = await devices();
    await page.locator(`[data-device-id="${first}"]`).getByRole('button', { name: 'Revoke Test phone' }).click();
    await expect.poll(devices).toEqual([second]);
    expect((await harness.admin('GET', '/users/dora/devices')).body.devices.map((device: { device_id: string }) => device.device_id)).toEqual([second]);
  });

  it('passes axe-core with the lists shown, and raised no page error', async () => {
    const { violations } = await new AxeBuilder({ page }).include('[data-testid="clients-panel"]').include('[data-testid="users-panel"]').analyze();
    expect(violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`)).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
