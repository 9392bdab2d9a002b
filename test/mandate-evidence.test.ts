import { verifyMandateEvidence, type MandateEvidence } from '@countersign/server';
import type { AuthorizationDetails } from '@countersign/shared';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { answer, bcAuthorize, enrollWithRoles, pollToken } from './guarantees/policy-support.ts';
import { runAuditCommand } from '../server/src/cli/audit-command.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from './support/mandate.ts';
import { basic } from './support/raw-request.ts';

/**
 * A mandate's dispute evidence (docs/mandates.md "Evidence"): the export holds the
 * bounds, the passkey assertion over them, every spend with its outcome and the revocation, and
 * each of those is checked again without the server, against the tenant's exported hash chain.
 * Every tampering below must be caught with its own reason code.
 */
describe('mandate evidence (redis store)', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: { client_id: string; client_secret: string };

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Bill payer');
  });
  afterEach(() => harness.close());

  /** The tenant's chain, as `audit export` writes it: JSON lines, oldest first. */
  async function chainLines(): Promise<string[]> {
    const lines: string[] = [];
    for await (const line of harness.deps.audit.export('default')) lines.push(line);
    return lines;
  }

  /** A mandate approved, spent twice (one succeeded, one failed), then revoked by the person's operator; its evidence. */
  async function disputedMandate(): Promise<{ evidence: MandateEvidence; auth_req_id: string }> {
    const { token, auth_req_id } = await approvedMandate(harness, client, customer, mandate(harness.clock.now()));
    const report = (redemptionId: string, body: unknown) => harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body, headers: { authorization: basic(client) } });
    const first = await spend(harness, client, token, spendPayment('bill_1', { amount_minor: 1000 }));
    const second = await spend(harness, client, token, spendPayment('bill_2', { amount_minor: 250, payee: { id: 'acct_78', name: 'Water Board' } }));
    expect([first.status, second.status]).toEqual([200, 200]);
    expect((await report(first.body.redemption_id, { status: 'succeeded', reference: 'pay_1' })).status).toBe(200);
    expect((await report(second.body.redemption_id, { status: 'failed', reason: 'Card declined' })).status).toBe(200);
    expect((await harness.admin('POST', `/mandates/${auth_req_id}/revoke`)).status).toBe(200);
    await harness.drain();
    const exported = await harness.admin('GET', `/mandates/${auth_req_id}/evidence`);
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    return { evidence: exported.body as MandateEvidence, auth_req_id };
  }

  const copy = (evidence: MandateEvidence): MandateEvidence => structuredClone(evidence);
  const codes = async (evidence: MandateEvidence, chain?: string[]) => (await verifyMandateEvidence(evidence, chain)).problems.map((problem) => problem.code);

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

  it('catches changed bounds, a re-hashed action, a forged signature and swapped evidence', async () => {
    const { evidence } = await disputedMandate();
    const chain = await chainLines();

    const raised = copy(evidence);
    (raised.authorization_details[0] as { limits: { total_minor: number }[] }).limits[0]!.total_minor = 370_000;
    expect(await codes(raised, chain)).toEqual(['details_hash_mismatch']);

    // The raised bounds with their own hash: the passkey signed the old hash, and the chain holds it.
    const rehashed = copy(raised);
    const { detailsHash } = await import('@countersign/shared');
    rehashed.details_hash = await detailsHash(rehashed.authorization_details);
    expect(await codes(rehashed, chain)).toContain('signed_other_action');

    const forged = copy(evidence);
    const signature = Buffer.from(forged.approvals[0]!.evidence!.assertion.response.signature, 'base64url');
    signature.writeUInt8(signature.readUInt8(signature.length - 1) ^ 0x01, signature.length - 1);
    forged.approvals[0]!.evidence!.assertion.response.signature = signature.toString('base64url');
    expect(await codes(forged, chain)).toEqual(['evidence_hash_mismatch']);
    // And with its evidence hash made to fit: the signature fails, and the chain knows the real hash.
    const { evidenceHash } = await import('../server/src/devices/approval-evidence.ts');
    forged.approvals[0]!.evidence_hash = evidenceHash(forged.approvals[0]!.evidence!);
    expect(await codes(forged, chain)).toEqual(['signature_invalid', 'approval_not_in_audit']);

    const stripped = copy(evidence);
    stripped.approvals[0]!.evidence = null;
    expect(await codes(stripped, chain)).toEqual(['evidence_missing']);
  });

  it('catches a spend hidden, a spend changed, and an audit event edited or left out', async () => {
    const { evidence } = await disputedMandate();
    const chain = await chainLines();

    const hidden = copy(evidence);
    hidden.spends.splice(1, 1);
    expect(await codes(hidden, chain)).toEqual(['spend_missing']);

    const smaller = copy(evidence);
    smaller.spends[0]!.amount_minor = 100;
    expect(await codes(smaller, chain)).toEqual(['spend_not_in_audit']);

    // The spend and its audit event changed together: only the chain can tell.
    const rewritten = copy(smaller);
    const spent = rewritten.audit.find((event) => event.type === 'spent' && event.detail?.transaction_id === 'bill_1')!;
    spent.detail = { ...spent.detail, amount_minor: 100 };
    expect(await codes(rewritten)).toEqual([]);
    expect(await codes(rewritten, chain)).toEqual(['event_not_in_chain']);

    const outcome = copy(evidence);
    outcome.spends[1]!.outcome = { status: 'succeeded', reported_at: outcome.spends[1]!.outcome!.reported_at };
    expect(await codes(outcome, chain)).toEqual(['outcome_not_in_audit']);

    const silent = copy(evidence);
    silent.revocation = null;
    silent.audit = silent.audit.filter((event) => event.type !== 'mandate_revoked');
    expect(await codes(silent)).toEqual([]);
    expect(await codes(silent, chain)).toEqual(['event_missing']);

    const editedChain = chain.map((line) => (line.includes('"type":"spent"') ? line.replace('"amount_minor":1000', '"amount_minor":100') : line));
    expect(await codes(evidence, editedChain)).toEqual(expect.arrayContaining(['chain_broken', 'event_not_in_chain']));
    expect((await verifyMandateEvidence({ format: 'other' } as unknown as MandateEvidence)).problems.map((p) => p.code)).toEqual(['unreadable']);
  });

  it("keeps each party's signature when a finance reviewer must approve the mandate too", async () => {
    const reviewer = await enrollWithRoles(harness, 'reviewer_1', ['reviewer:finance']);
    // EUR 10,000 in all: the shipped policy's high tier, the customer and a finance reviewer.
    const details = mandate(harness.clock.now(), { limits: [{ currency: 'EUR', per_spend_min_minor: 100, per_spend_max_minor: 50_000, total_minor: 1_000_000 }] });
    const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect((await answer(harness, customer, asked.body.auth_req_id, { decision: 'approve', code: asked.body.binding_code })).status).toBe(200);
    expect((await answer(harness, reviewer, asked.body.auth_req_id, { decision: 'approve' })).status).toBe(200);
    expect((await pollToken(harness, client, asked.body.auth_req_id)).status).toBe(200);
    await harness.drain();
    const evidence = (await harness.admin('GET', `/mandates/${asked.body.auth_req_id}/evidence`)).body as MandateEvidence;
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

  it('is checked offline by `audit verify-evidence` against the chain export: 0 when it holds, 1 with one line per finding, 2 for a file that is not evidence', async () => {
    const { evidence, auth_req_id } = await disputedMandate();
    const hidden = copy(evidence);
    hidden.spends.pop();
    const files = new Map<string, string[]>([
      ['evidence.json', JSON.stringify(evidence, null, 2).split('\n')],
      ['hidden.json', [JSON.stringify(hidden)]],
      ['chain.jsonl', await chainLines()],
      ['notes.txt', ['not evidence']],
    ]);
    const out: string[] = [];
    const err: string[] = [];
    const run = (...argv: string[]) =>
      runAuditCommand(argv, {
        openAudit: () => Promise.reject(new Error('verify-evidence needs no store')),
        readLines: async function* (path) {
          yield* files.get(path) ?? [];
        },
        out: (line) => void out.push(line),
        err: (line) => void err.push(line),
      });
    expect(await run('verify-evidence', '--evidence', 'evidence.json', '--file', 'chain.jsonl')).toBe(0);
    expect(out.splice(0)).toEqual([`ok: mandate ${auth_req_id}: 1 passkey signature over its exact bounds, 2 spends and ${evidence.audit.length} audit events, all in the tenant's chain`]);
    expect(await run('verify-evidence', '--evidence', 'hidden.json', '--file', 'chain.jsonl')).toBe(1);
    expect(out.splice(0)).toEqual([expect.stringMatching(/^spend_missing: the audit records spend bill_2, which the evidence leaves out$/)]);
    expect(await run('verify-evidence', '--evidence', 'notes.txt', '--file', 'chain.jsonl')).toBe(2);
    expect(await run('verify-evidence', '--evidence', 'evidence.json')).toBe(2);
    expect(err.map((line) => line.split('\n')[0])).toEqual(['--evidence is not JSON: give the file the evidence download wrote', 'verify-evidence takes --evidence and --file (the chain export), and [--json]']);
  });

  it('answers 404 for an unknown id or a request that is not a mandate, 400 for a bad tenant, 401 without the admin token', async () => {
    expect((await harness.admin('GET', '/mandates/nope/evidence')).body.error).toBe('not_found');
    const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details: [spendPayment('refund_1') as AuthorizationDetails[number]] });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const payment = await harness.admin('GET', `/mandates/${asked.body.auth_req_id}/evidence`);
    expect([payment.status, payment.body.error]).toEqual([404, 'not_found']);
    expect((await harness.admin('GET', `/mandates/${asked.body.auth_req_id}/evidence?tenant=NOT%20A%20TENANT`)).status).toBe(400);
    expect((await harness.call('GET', `/api/admin/mandates/${asked.body.auth_req_id}/evidence`)).status).toBe(401);
  });
});
