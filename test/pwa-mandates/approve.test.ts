import type { RequestDisplay } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { poll, useMandatePhone } from './support.ts';

// The mandate's approval on the phone: its bounds in words, each as the server's display says it,
// approved with number matching and the passkey.

describe('a standing mandate on the phone: approve, follow the payments, revoke', () => {
  const ui = useMandatePhone();

  it('shows the bounds in words and approves with number matching', async () => {
    const { page } = ui;
    const asked = await ui.askMandate();
    const authReqId = asked.authReqId;
    // Every mandate is at least elevated: number matching.
    expect(asked.code).toMatch(/^\d{2}$/);

    // The approval: the bounds in words, each as the server's display says it.
    await page.goto(`${ui.origin}/#/requests/${authReqId}`);
    const screen = page.getByTestId('request-screen');
    await expect.poll(() => screen.getAttribute('data-state'), poll).toBe('pending');
    const { request } = await ui.served<{ request: RequestDisplay }>(`/requests/${authReqId}`);
    const display = request.actions[0]!;
    const line = (label: string) => display.fields.find((field) => field.label === label)!.value;
    expect(display.mandate).toMatchObject({ period: 'month', max_spends: 4, receipts: true, limits: [{ currency: 'EUR', total: { formatted_code: 'EUR 37.00' } }] });
    const card = screen.locator('[data-testid="action"][data-type="mandate"]');
    expect(await screen.getByTestId('request-title').textContent()).toBe(display.title);
    expect(display.title).toBe('Allow payments to ACME Utilities and 1 more: up to EUR 37.00 a month');
    expect(await card.getByTestId('mandate-lead').textContent()).toMatch(/^A standing permission: /);
    expect(await card.locator('.amount-label').textContent()).toBe('Up to, each month');
    expect(await card.getByTestId('mandate-total').textContent()).toBe('EUR 37.00');
    expect(await card.getByTestId('mandate-total').getAttribute('data-count')).toBe('3700');
    expect(line('In all')).toBe('up to EUR 37.00 a month');
    expect(await card.getByTestId('mandate-range').textContent()).toBe(`Each payment ${line('Each payment')}`);
    expect(line('Each payment')).toBe('EUR 1.00 to EUR 10.00');
    expect(await card.locator('[data-testid="mandate-payees"] li').allTextContents()).toEqual(line('Payees').split(', '));
    expect(line('Payees')).toBe('ACME Utilities (acct_77), Water Board (acct_78)');
    expect(await card.getByTestId('mandate-spends').textContent()).toBe('At most 4 payments a month');
    expect(line('How many')).toBe('at most 4 payments a month');
    expect(await card.getByTestId('mandate-from').textContent()).toBe(line('From'));
    expect(await card.getByTestId('mandate-until').textContent()).toBe(line('Until'));
    expect(line('Until')).toMatch(/^\d{1,2} \w{3} \d{4}, \d{2}:\d{2} UTC$/);
    expect(await card.getByTestId('mandate-receipts').textContent()).toBe('On: a notification for each payment');
    expect(await card.getByTestId('purpose').textContent()).toBe('Utility bills');
    // The lines the part shows are not repeated; purpose and transaction stay the server's.
    expect(await card.locator('dt').allTextContents()).toEqual(['How many', 'From', 'Until', 'Receipts', 'Purpose', 'Transaction']);
    expect(await screen.getByTestId('code-buttons').locator('button').count()).toBe(3);
    await ui.check('mandate-approve', { whole: true });

    const before = await ui.signCount();
    await ui.approveOnPhone(asked);
    expect(await ui.signCount()).toBe(before + 1);
    expect(await page.getByTestId('result-detail').textContent()).toBe('The agent may now make payments within these bounds until the mandate ends. See each payment, or stop it, under Mandates.');
    expect(ui.app.errors).toEqual([]);
  });
});
