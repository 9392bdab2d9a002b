import { describe, expect, it } from 'vitest';
import { authorizationDetails, displayAction, totalsPerCurrency } from './registry.ts';

const payment = (transaction_id: string, amount_minor: number, currency: string) => ({
  type: 'payment',
  transaction_id,
  amount_minor,
  currency,
  payee: { id: 'acct_77', name: 'ACME Ltd' },
  purpose: 'Supplier run',
});
const deletion = { type: 'deletion', transaction_id: 'del_88', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1'], count: 1, reversible: true, purpose: 'Erasure request 88' };

describe('a batch: the total per currency', () => {
  it('sums three payments in two currencies, each with its own exponent, in code order', () => {
    // JPY first as sent: the totals come in code order (EUR, JPY), not the order of the actions.
    const batch = authorizationDetails.parse([payment('t1', 5000, 'JPY'), payment('t2', 100000, 'EUR'), payment('t3', 20050, 'EUR')]);
    expect(totalsPerCurrency(batch)).toStrictEqual([
      { amount_minor: 120050, currency: 'EUR', exponent: 2, decimal: '1200.50', formatted: '€1,200.50', formatted_code: 'EUR 1,200.50' },
      { amount_minor: 5000, currency: 'JPY', exponent: 0, decimal: '5000', formatted: '¥5,000', formatted_code: 'JPY 5,000' },
    ]);
    // Each payment is still shown on its own beside the totals.
    expect(batch.map((action) => displayAction(action).title)).toEqual(['Pay JPY 5,000 to ACME Ltd', 'Pay EUR 1,000.00 to ACME Ltd', 'Pay EUR 200.50 to ACME Ltd']);
  });

  it('is empty when no action moves money, and counts only the payments of a mixed batch', () => {
    expect(totalsPerCurrency(authorizationDetails.parse([deletion]))).toEqual([]);
    expect(totalsPerCurrency([])).toEqual([]);
    expect(totalsPerCurrency(authorizationDetails.parse([deletion, payment('t1', 49000, 'EUR')])).map((total) => total.formatted_code)).toEqual(['EUR 490.00']);
  });

  it('refuses a batch whose amounts in one currency add up past 2^53 - 1 minor units', () => {
    const max = Number.MAX_SAFE_INTEGER;
    expect(authorizationDetails.safeParse([payment('t1', max - 1, 'JPY'), payment('t2', 1, 'JPY'), payment('t3', max, 'EUR')]).success).toBe(true);
    const result = authorizationDetails.safeParse([payment('t1', max, 'JPY'), payment('t2', 1, 'JPY')]);
    expect(result.error?.issues.map((issue) => issue.message)).toEqual(['the amounts in JPY add up to more than 9007199254740991 minor units']);
  });
});
