import type { AuthorizationDetails } from '@countersign/shared';
import { expect } from 'vitest';
import { answer, bcAuthorize, pollToken } from '../guarantees/policy-support.ts';
import type { EnrolledUser, Harness } from './harness.ts';
import { basic } from './raw-request.ts';

/** An instant as a mandate states it: RFC 3339 UTC to the second. */
export function instant(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * A mandate of ACME Utilities (acct_77): EUR 1.00 to 10.00 a spend, EUR 37.00 in all, from now
 * (to the second) for 30 days; with overrides.
 */
export function mandate(nowMs: number, overrides: Record<string, unknown> = {}): AuthorizationDetails {
  return [
    {
      type: 'mandate',
      transaction_id: 'mdt_1',
      covers: 'payment',
      payees: [
        { id: 'acct_77', name: 'ACME Utilities' },
        { id: 'acct_78', name: 'Water Board' },
      ],
      limits: [{ currency: 'EUR', per_spend_min_minor: 100, per_spend_max_minor: 1000, total_minor: 3700 }],
      starts_at: instant(nowMs),
      ends_at: instant(nowMs + 30 * 86_400_000),
      purpose: 'Utility bills',
      ...overrides,
    } as AuthorizationDetails[number],
  ];
}

/** One payment to spend under {@link mandate}. */
export function spendPayment(transactionId: string, overrides: Record<string, unknown> = {}) {
  return { type: 'payment', transaction_id: transactionId, amount_minor: 100, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Utilities' }, purpose: 'Electricity', ...overrides };
}

/** Asks for `details`, approves it on the phone (with the number-matching code when asked) and polls the mandate token. */
export async function approvedMandate(harness: Harness, client: { client_id: string; client_secret: string }, customer: EnrolledUser, details: AuthorizationDetails) {
  const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details });
  expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  const decided = await answer(harness, customer, asked.body.auth_req_id, asked.body.binding_code === undefined ? { decision: 'approve' } : { decision: 'approve', code: asked.body.binding_code });
  expect(decided.status, JSON.stringify(decided.body)).toBe(200);
  const polled = await pollToken(harness, client, asked.body.auth_req_id);
  expect(polled.status, JSON.stringify(polled.body)).toBe(200);
  return { auth_req_id: asked.body.auth_req_id as string, token: polled.body.access_token as string, expires_in: polled.body.expires_in as number };
}

/** `POST /redeem` with the mandate token and one payment, as the client. */
export function spend(harness: Harness, client: { client_id: string; client_secret: string }, token: string, payment: unknown) {
  return harness.call('POST', '/redeem', { body: { token, authorization_details: [payment] }, headers: { authorization: basic(client) } });
}
