import type { AuthorizationDetails } from '@countersign/shared';

/** The payment of docs/ciba.md: EUR 490.00 to ACME Ltd, with overrides. */
export function payment(overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'payment',
      transaction_id: 'txn_1042',
      amount_minor: 49000,
      currency: 'EUR',
      payee: { id: 'acct_77', name: 'ACME Ltd' },
      purpose: 'Refund for order 1042',
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}
