/** A mandate's dispute evidence (docs/mandates.md "Evidence"): what the export holds, each party's signature in it, and who may export it. */
import { verifyMandateEvidence, type MandateEvidence } from '@countersign/server';
import type { AuthorizationDetails } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { answer, bcAuthorize, enrollWithRoles, pollToken } from './guarantees/policy-support.ts';
import { mandate, spendPayment } from './support/mandate.ts';
import { useMandateEvidence } from './support/mandate-evidence.ts';

describe('mandate evidence (redis store)', () => {
  const ctx = useMandateEvidence();
  const { chainLines, disputedMandate, copy, codes } = ctx;

  it('exports the signed bounds, every spend with its outcome and the revocation, and it verifies against the chain', async () => {
    const { evidence, auth_req_id } = await disputedMandate();
    expect(evidence).toMatchObject({ format: 'countersign-mandate-evidence/1', auth_req_id, sub: 'customer_1', client_name: 'Bill payer', status: 'revoked', revocation: { by: 'admin' } });
    expect(evidence.authorization_details).toEqual(mandate(Date.parse((evidence.authorization_details[0] as { starts_at: string }).starts_at)));
    expect(evidence.spends.map((s) => [s.transaction_id, s.amount_minor, s.currency, s.payee.id, s.outcome?.status, s.outcome?.reference ?? s.outcome?.reason])).toEqual([
      ['bill_1', 1000, 'EUR', 'acct_77', 'succeeded', 'pay_1'],
      ['bill_2', 250, 'EUR', 'acct_78', 'failed', 'Card declined'],
    ]);
    // The person approved as the customer, under number matching: the code they picked is signed too.
    expect(evidence.approvals).toHaveLength(1);
    const [approval] = evidence.approvals;
    expect(approval).toMatchObject({ party: 'customer', sub: 'customer_1', evidence_hash: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/) });
    expect(approval!.evidence!.signed).toMatchObject({ auth_req_id, details_hash: evidence.details_hash, decision: 'approve', selected_code: expect.stringMatching(/^\d+$/) });
    expect(evidence.audit.map((event) => event.type)).toEqual(expect.arrayContaining(['proposed', 'approved', 'token_issued', 'spent', 'outcome', 'mandate_revoked']));

    const report = await verifyMandateEvidence(evidence, await chainLines());
    expect(report).toEqual({ ok: true, problems: [], checked: { signatures: 1, spends: 2, events: evidence.audit.length, chain: true } });
  });

  it("keeps each party's signature when a finance reviewer must approve the mandate too", async () => {
    const reviewer = await enrollWithRoles(ctx.harness, 'reviewer_1', ['reviewer:finance']);
    // EUR 10,000 in all: the shipped policy's high tier, the customer and a finance reviewer.
    const details = mandate(ctx.harness.clock.now(), { limits: [{ currency: 'EUR', per_spend_min_minor: 100, per_spend_max_minor: 50_000, total_minor: 1_000_000 }] });
    const asked = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect((await answer(ctx.harness, ctx.customer, asked.body.auth_req_id, { decision: 'approve', code: asked.body.binding_code })).status).toBe(200);
    expect((await answer(ctx.harness, reviewer, asked.body.auth_req_id, { decision: 'approve' })).status).toBe(200);
    expect((await pollToken(ctx.harness, ctx.client, asked.body.auth_req_id)).status).toBe(200);
    await ctx.harness.drain();
    const evidence = (await ctx.harness.admin('GET', `/mandates/${asked.body.auth_req_id}/evidence`)).body as MandateEvidence;
    expect(evidence.approvals.map((given) => [given.party, given.sub])).toEqual([
      ['customer', 'customer_1'],
      ['role:reviewer:finance', 'reviewer_1'],
    ]);
    expect(evidence.approvals[1]!.evidence!.signed).not.toHaveProperty('selected_code');
    expect(await verifyMandateEvidence(evidence, await chainLines())).toMatchObject({ ok: true, checked: { signatures: 2, spends: 0 } });
    // One party's evidence put in the place of the other's: the credential and the audit disagree.
    const swapped = copy(evidence);
    swapped.approvals[1]!.evidence = swapped.approvals[0]!.evidence;
    swapped.approvals[1]!.evidence_hash = swapped.approvals[0]!.evidence_hash;
    expect(await codes(swapped, await chainLines())).toEqual(['signature_invalid', 'approval_not_in_audit']);
  });

  it('answers 404 for an unknown id or a request that is not a mandate, 400 for a bad tenant, 401 without the admin token', async () => {
    expect((await ctx.harness.admin('GET', '/mandates/nope/evidence')).body.error).toBe('not_found');
    const asked = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: [spendPayment('refund_1') as AuthorizationDetails[number]] });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const payment = await ctx.harness.admin('GET', `/mandates/${asked.body.auth_req_id}/evidence`);
    expect([payment.status, payment.body.error]).toEqual([404, 'not_found']);
    expect((await ctx.harness.admin('GET', `/mandates/${asked.body.auth_req_id}/evidence?tenant=NOT%20A%20TENANT`)).status).toBe(400);
    expect((await ctx.harness.call('GET', `/api/admin/mandates/${asked.body.auth_req_id}/evidence`)).status).toBe(401);
  });
});
