import type { MandateDetailResponse, MandateListResponse, MandateView } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { formatWhen } from '../../approver-pwa/src/ui/format-time.ts';
import { widthAt360 } from '../support/pwa-browser.ts';
import { poll, useMandatePhone } from './support.ts';

// An approved mandate spent twice: the Mandates list says what is left, and the mandate's screen
// lists each payment with its outcome, as the server's MandateView has them.

describe('a standing mandate on the phone: approve, follow the payments, revoke', () => {
  const ui = useMandatePhone();

  it('lists the payments with what is left and each one’s outcome', async () => {
    const { page, texts } = ui;
    const { authReqId } = await ui.spentMandate();

    // The list: active, what is left this month, payments left; as the server's MandateView.
    // A request's screen keeps to its task: back to the inbox, where the navigation is.
    await page.locator('a.back-link').click();
    await page.getByTestId('nav-mandates').click();
    expect(await page.getByTestId('nav-mandates').getAttribute('aria-current')).toBe('page');
    const item = page.locator(`[data-testid="mandate-item"][data-auth-req-id="${authReqId}"]`);
    await item.waitFor();
    const [listed] = (await ui.served<MandateListResponse>('/mandates')).mandates as [MandateView];
    expect(listed).toMatchObject({ auth_req_id: authReqId, status: 'active', client_name: 'Bill payer', spends_left: 2 });
    expect(listed.remaining.map((left) => [left.left.formatted_code, left.spent.formatted_code, left.total.formatted_code])).toEqual([['EUR 22.50', 'EUR 14.50', 'EUR 37.00']]);
    expect(await item.getByTestId('mandate-status').textContent()).toBe('✓ Active');
    expect(await item.getByTestId('client-name').textContent()).toBe('Bill payer');
    expect(await item.getByTestId('remaining-left').allTextContents()).toEqual(listed.remaining.map((left) => left.left.formatted_code));
    expect(await item.getByTestId('remaining').first().textContent()).toBe('EUR 22.50 left this monthof EUR 37.00, EUR 14.50 paid');
    expect(await item.getByTestId('spends-left').textContent()).toBe('2 payments left this month');
    expect(await item.getByTestId('mandate-spend-count').textContent()).toBe('2 payments made');
    expect(await widthAt360(page), 'the list and its four-part navigation fit 360 px').toEqual({ scrollWidth: 360, overflowing: [] });

    // One mandate: every payment, newest first, with its outcome.
    await item.getByTestId('mandate-open').click();
    const detail = page.getByTestId('mandate-screen');
    await expect.poll(() => detail.getAttribute('data-status'), poll).toBe('active');
    const opened = await ui.served<MandateDetailResponse>(`/mandates/${authReqId}`);
    expect(opened.mandate.spends.map((spent) => [spent.transaction_id, spent.outcome])).toEqual([
      ['bill_2', { status: 'failed', reason: 'Account closed' }],
      ['bill_1', { status: 'succeeded', reference: 'pay_981' }],
    ]);
    expect(await page.getByTestId('mandate-title').textContent()).toBe(opened.mandate.display.title);
    expect(await texts('spend-amount')).toEqual(opened.mandate.spends.map((spent) => spent.amount.formatted_code));
    expect(await texts('spend-amount')).toEqual(['EUR 4.50', 'EUR 10.00']);
    expect(await texts('spend-payee')).toEqual(['Water Board (acct_78)', 'ACME Utilities (acct_77)']);
    expect(await texts('spend-when')).toEqual(opened.mandate.spends.map((spent) => formatWhen(spent.spent_at, new Date(), 'en-GB')));
    expect(await texts('spend-outcome')).toEqual(['! Failed', '✓ Succeeded']);
    expect(await texts('spend-reason')).toEqual(['Account closed']);
    expect(await texts('spend-reference')).toEqual(['pay_981']);
    expect(await texts('remaining-left')).toEqual(['EUR 22.50']);
    expect(await page.getByTestId('mandate-period').textContent()).toBe(`This month runs until ${formatWhen(opened.mandate.period!.end, new Date(), 'en-GB')}; the amounts then start again.`);
    // The bounds as approved, the same card as at the approval.
    expect(await detail.getByTestId('mandate-total').textContent()).toBe('EUR 37.00');
    await ui.check('mandate-active', { whole: true });
    expect(ui.app.errors).toEqual([]);
  });
});
