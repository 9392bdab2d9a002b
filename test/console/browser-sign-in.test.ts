import { expect, describe, it } from 'vitest';
import { ARTIFACTS, STEP_MS, useConsoleScene } from './support.ts';

// The console page under the server's CSP, signing in with the admin token, and sending a test request, a payment or a tool call.

describe('the operator console', () => {
  const c = useConsoleScene();

  it("is a static page under the server's CSP, with no inline script or style", async () => {
    const response = await c.page.goto(`${c.origin}/console`);
    expect(response?.status()).toBe(200);
    const csp = response!.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    const html = await response!.text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/\sstyle=/);
    expect(html).not.toMatch(/\son[a-z]+=/);
    await c.page.getByTestId('sign-in').waitFor();
    expect(await c.cspViolations()).toEqual([]);
  });

  it('refuses a wrong token and keeps nothing', async () => {
    await c.page.getByTestId('token').fill('not-the-admin-token-0123456789');
    await c.page.getByTestId('sign-in-button').click();
    await expect.poll(() => c.page.getByTestId('sign-in-error').textContent()).toContain('not the admin token');
    expect(await c.page.evaluate(() => sessionStorage.length)).toBe(0);
  });

  it('signs in with the admin token, keeps it in this tab only, and sends it as a Bearer token', async () => {
    await c.page.getByTestId('token').fill(c.harness.adminToken);
    await c.page.getByTestId('token').press('Enter');
    await c.page.getByTestId('send').waitFor();
    expect(await c.page.evaluate(() => Object.keys(sessionStorage))).toEqual(['countersign.console.admin-token']);
    expect(await c.page.evaluate(() => localStorage.length)).toBe(0);
    await c.page.reload();
    await c.page.getByTestId('send').waitFor();
    expect(c.adminAuthorizations).toContain(`Bearer ${c.harness.adminToken}`);
  });

  it('sends a test request and follows it from pending to approved', async () => {
    await c.page.getByTestId('login-hint').fill('alice');
    await c.page.getByTestId('binding-message').fill('Console 0001');
    await c.page.getByTestId('send').click();
    await expect.poll(c.state, { timeout: STEP_MS }).toBe('pending');
    const id = (await c.page.getByTestId('watch').getAttribute('data-auth-req-id'))!;
    await expect.poll(c.timeline).toContain('proposed');
    expect(await c.page.getByTestId('watch').textContent()).toContain('EUR 490.00 to ACME Ltd');
    await expect.poll(() => c.page.locator(`[data-testid="pending"] li[data-auth-req-id="${id}"]`).count()).toBe(1);

    // What the person sees on the phone: the console's client, named so they know it is a test.
    const view = await c.harness.call('GET', `/api/device/requests/${id}`, { headers: { cookie: c.alice.cookie } });
    expect(view.body.request).toMatchObject({ client_name: 'Countersign console (test)', binding_message: 'Console 0001' });
    await c.page.screenshot({ path: `${ARTIFACTS}/console-pending.png`, fullPage: true });

    expect((await c.harness.decide(c.alice, id, 'approve')).status).toBe(200);
    await expect.poll(c.state, { timeout: STEP_MS }).toBe('approved');
    await expect.poll(c.timeline).toEqual(expect.arrayContaining(['proposed', 'viewed', 'approved']));
    await c.page.getByTestId('refresh').click();
    await expect.poll(() => c.page.locator(`[data-testid="pending"] li[data-auth-req-id="${id}"]`).count()).toBe(0);
    await c.page.screenshot({ path: `${ARTIFACTS}/console-approved.png`, fullPage: true });
  });

  it('sends a tool call as a test request', async () => {
    await c.page.getByTestId('action-type').selectOption('tool_call');
    expect(await c.page.getByTestId('amount').isVisible()).toBe(false);
    await c.page.getByTestId('tool-arguments').fill('{"entityNames": ["Alice", "Zoë"], "ratio": 1.5}');
    await c.page.getByTestId('send').click();
    await expect.poll(() => c.page.getByTestId('watch').textContent(), { timeout: STEP_MS }).toContain('memory: delete_entities');
    const id = (await c.page.getByTestId('watch').getAttribute('data-auth-req-id'))!;
    const stored = await c.harness.admin('GET', `/requests/${id}`);
    expect(stored.body.request.authorization_details[0]).toMatchObject({ type: 'tool_call', server: 'memory', tool: 'delete_entities', arguments: { entityNames: ['Alice', 'Zoë'], ratio: 1.5 }, annotations: { destructiveHint: true } });
    await c.page.getByTestId('action-type').selectOption('payment');
  });
});
