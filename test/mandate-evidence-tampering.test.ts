/** A mandate's dispute evidence (docs/mandates.md "Evidence"): every tampering is caught with its own reason code, online and by `audit verify-evidence` offline. */
import { verifyMandateEvidence, type MandateEvidence } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { runAuditCommand } from '../server/src/cli/audit-command.ts';
import { useMandateEvidence } from './support/mandate-evidence.ts';

describe('mandate evidence (redis store)', () => {
  const ctx = useMandateEvidence();
  const { chainLines, disputedMandate, copy, codes } = ctx;

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
});
