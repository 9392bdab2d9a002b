/**
 * Set-up shared by the tests of a mandate's dispute evidence (docs/mandates.md "Evidence"): the export holds the
 * bounds, the passkey assertion over them, every spend with its outcome and the revocation, and
 * each of those is checked again without the server, against the tenant's exported hash chain.
 */
import { verifyMandateEvidence, type MandateEvidence } from '@countersign/server';
import { afterEach, beforeEach, expect } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from './mandate.ts';
import { basic } from './raw-request.ts';

/** Registers, in the calling `describe`, a fresh Redis-backed server per test with customer_1 and a bill-paying client; read them through the returned object. */
export function useMandateEvidence() {
  // Set as each test starts its server, read by the tests through the returned object.
  const state = {} as {
    harness: Harness;
    customer: EnrolledUser;
    client: { client_id: string; client_secret: string };
  };

  beforeEach(async () => {
    state.harness = await createHarness({ store: 'redis' });
    state.customer = await state.harness.enrollUser('customer_1');
    state.client = await state.harness.createClient('Bill payer');
  });
  afterEach(() => state.harness.close());

  /** The tenant's chain, as `audit export` writes it: JSON lines, oldest first. */
  async function chainLines(): Promise<string[]> {
    const lines: string[] = [];
    for await (const line of state.harness.deps.audit.export('default')) lines.push(line);
    return lines;
  }

  /** A mandate approved, spent twice (one succeeded, one failed), then revoked by the person's operator; its evidence. */
  async function disputedMandate(): Promise<{ evidence: MandateEvidence; auth_req_id: string }> {
    const { token, auth_req_id } = await approvedMandate(state.harness, state.client, state.customer, mandate(state.harness.clock.now()));
    const report = (redemptionId: string, body: unknown) => state.harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body, headers: { authorization: basic(state.client) } });
    const first = await spend(state.harness, state.client, token, spendPayment('bill_1', { amount_minor: 1000 }));
    const second = await spend(state.harness, state.client, token, spendPayment('bill_2', { amount_minor: 250, payee: { id: 'acct_78', name: 'Water Board' } }));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await report(first.body.redemption_id, { status: 'succeeded', reference: 'pay_1' })).status).toBe(200);
    expect((await report(second.body.redemption_id, { status: 'failed', reason: 'Card declined' })).status).toBe(200);
    expect((await state.harness.admin('POST', `/mandates/${auth_req_id}/revoke`)).status).toBe(200);
    await state.harness.drain();
    const exported = await state.harness.admin('GET', `/mandates/${auth_req_id}/evidence`);
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    return { evidence: exported.body as MandateEvidence, auth_req_id };
  }

  const copy = (evidence: MandateEvidence): MandateEvidence => structuredClone(evidence);
  const codes = async (evidence: MandateEvidence, chain?: string[]) => (await verifyMandateEvidence(evidence, chain)).problems.map((problem) => problem.code);

  return Object.assign(state, { chainLines, disputedMandate, copy, codes });
}
