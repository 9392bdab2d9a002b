import type { MandateDetailResponse } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { bcAuthorize } from '../guarantees/policy-support.ts';
import { mandate, spend, spendPayment } from '../support/mandate.ts';
import { poll, useMandatePhone } from './support.ts';

// Stopping a mandate on the phone: a confirmation, then the passkey, and the agent's next spend is
// refused `mandate_revoked`; one stopped elsewhere first is said so plainly, with no passkey asked.

describe('a standing mandate on the phone: approve, follow the payments, revoke', () => {
  const ui = useMandatePhone();

  it('stops it with the passkey after a confirmation, and the next spend is refused', async () => {
    const { page, texts } = ui;
    const { authReqId, token } = await ui.spentMandate();
    await page.goto(`${ui.origin}/#/mandates/${encodeURIComponent(authReqId)}`);
    const detail = page.getByTestId('mandate-screen');
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('active');
    const signed = await ui.signCount();

    // Cancel at the confirmation: nothing is signed, nothing stops.
    await page.getByTestId('revoke').click();
    const dialog = page.getByTestId('revoke-dialog');
    await dialog.waitFor();
    expect(await dialog.locator('h2').textContent()).toBe('Stop Bill payer from making more payments under this mandate?');
    // The focus starts on Cancel: Enter never stops a mandate by accident.
    expect(await page.evaluate(() => (document.activeElement as HTMLElement).dataset.testid)).toBe('revoke-dialog-cancel');
    await page.getByTestId('revoke-dialog-cancel').click();
    await dialog.waitFor({ state: 'detached' });
    expect(await ui.signCount()).toBe(signed);
    expect((await ui.served<MandateDetailResponse>(`/mandates/${authReqId}`)).mandate.status).toBe('active');

    // Confirm, then the passkey: revoked.
    await page.getByTestId('revoke').click();
    await page.getByTestId('revoke-dialog-confirm').click();
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('revoked');
    expect(await ui.signCount()).toBe(signed + 1);
    expect(await page.getByTestId('mandate-message').textContent()).toBe('Stopped with your passkey.');
    expect(await page.getByTestId('mandate-status').textContent()).toBe('✕ Revoked');
    expect(await page.getByTestId('mandate-revoked-note').textContent()).toMatch(/^Revoked today, \d{2}:\d{2}\. Bill payer can make no more payments under it\./);
    expect(await page.getByTestId('revoke').count()).toBe(0);
    expect(await texts('spend-outcome')).toEqual(['! Failed', '✓ Succeeded']);
    const revoked = await ui.served<MandateDetailResponse>(`/mandates/${authReqId}`);
    expect(revoked).toMatchObject({ mandate: { status: 'revoked', revoked_at: expect.any(String) }, options: {} });
    expect(revoked.options.revoke).toBeUndefined();
    await ui.check('mandate-revoked');

    // The agent's next payment is refused, and the list says it is revoked.
    const refused = await spend(ui.harness, ui.client, token, spendPayment('bill_3'));
    expect([refused.status, refused.body.error]).toEqual([403, 'mandate_revoked']);
    await page.getByTestId('nav-mandates').click();
    const item = page.locator(`[data-testid="mandate-item"][data-auth-req-id="${authReqId}"]`);
    await expect.poll(() => item.getAttribute('data-status'), poll).toBe('revoked');
    expect(await item.getByTestId('mandate-status').textContent()).toBe('✕ Revoked');
    expect(await item.getByTestId('remaining').count()).toBe(0);
    expect(ui.app.errors).toEqual([]);
  });

  it('says so plainly when the mandate was stopped elsewhere before the person confirms, and asks for no passkey', async () => {
    const { page, harness } = ui;
    const details = mandate(harness.clock.now(), { transaction_id: 'mdt_2' });
    const asked = await bcAuthorize(harness, ui.client, { login_hint: ui.sub, details });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const authReqId = asked.body.auth_req_id as string;
    await page.goto(`${ui.origin}/#/requests/${authReqId}`);
    await page.getByTestId(`code-${asked.body.binding_code}`).click();
    await page.locator('[data-testid="result"][data-result="approved"]').waitFor();
    await page.goto(`${ui.origin}/#/mandates/${encodeURIComponent(authReqId)}`);
    const detail = page.getByTestId('mandate-screen');
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('active');
    expect(await page.getByTestId('spends-empty').textContent()).toBe('No payments yet.');
    // No count in this one: no "payments left" line.
    expect(await page.getByTestId('spends-left').count()).toBe(0);

    // An operator stops it while the screen is open.
    expect((await harness.admin('POST', `/mandates/${authReqId}/revoke`)).status).toBe(200);
    const signed = await ui.signCount();
    await page.getByTestId('revoke').click();
    await page.getByTestId('revoke-dialog-confirm').click();
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('revoked');
    expect(await page.getByTestId('error').textContent()).toBe('This mandate is not active any more, so there is nothing to stop.');
    expect(await page.getByTestId('error').getAttribute('role')).toBe('alert');
    expect(await ui.signCount()).toBe(signed);
    expect(ui.app.errors).toEqual([]);
  });
});
