import { describe, expect, it } from 'vitest';
import { authorizationDetails, requestSummary } from './registry.ts';

const payment = (transaction_id: string, amount_minor: number, currency: string) => ({
  type: 'payment',
  transaction_id,
  amount_minor,
  currency,
  payee: { id: 'acct_77', name: 'ACME Ltd' },
  purpose: 'Supplier run',
});
const deletion = { type: 'deletion', transaction_id: 'del_88', resource: { kind: 'customer', system: 'crm' }, ids: ['cus_1', 'cus_2'], count: 2, reversible: false, purpose: 'Erasure request 88' };

describe('a request in one line (the notification)', () => {
  it('is the action summary for one action', () => {
    expect(requestSummary(authorizationDetails.parse([payment('t1', 49000, 'EUR')]))).toBe('EUR 490.00 to ACME Ltd');
    expect(requestSummary(authorizationDetails.parse([deletion]))).toBe('Delete 2 customer records in crm');
  });

  it('gives a batch of payments its count and the total per currency, not the first payment alone', () => {
    const batch = authorizationDetails.parse([payment('t1', 100000, 'EUR'), payment('t2', 500, 'JPY'), payment('t3', 20000, 'EUR')]);
    expect(requestSummary(batch)).toBe('3 payments: EUR 1,200.00 + JPY 500');
  });

  it('names the first action and how many more in a mixed batch', () => {
    expect(requestSummary(authorizationDetails.parse([deletion, payment('t1', 49000, 'EUR')]))).toBe('Delete 2 customer records in crm and 1 more');
  });
});
