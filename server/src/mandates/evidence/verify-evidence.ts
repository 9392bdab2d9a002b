import { base64url, decisionChallenge, detailsHash } from '@countersign/shared';
import { verifyAuthenticationResponse } from '@simplewebauthn/server';
import { eventHash } from '../../audit/chain-hash.ts';
import type { StoredAuditEvent } from '../../audit/index.ts';
import { verifyChain } from '../../audit/verify-chain.ts';
import { evidenceHash } from '../../devices/approval-evidence.ts';
import { EVIDENCE_FORMAT, type EvidenceApproval, type MandateEvidence } from './export-evidence.ts';

/** Why a mandate's evidence does not hold; each is one finding of {@link verifyMandateEvidence}. */
export type EvidenceProblemCode =
  | 'unreadable'
  | 'details_hash_mismatch'
  | 'not_approved'
  | 'evidence_missing'
  | 'evidence_hash_mismatch'
  | 'signed_other_action'
  | 'signature_invalid'
  | 'approval_not_in_audit'
  | 'spend_not_in_audit'
  | 'spend_missing'
  | 'outcome_not_in_audit'
  | 'revocation_not_in_audit'
  | 'foreign_event'
  | 'chain_broken'
  | 'event_not_in_chain'
  | 'event_missing';

/** One finding: a stable code and what it is about, in words. */
export interface EvidenceProblem {
  code: EvidenceProblemCode;
  message: string;
}

/** The result of {@link verifyMandateEvidence}: `ok` when there is no finding. */
export interface EvidenceReport {
  ok: boolean;
  problems: EvidenceProblem[];
  /** What was checked: approvals whose signature verified, spends and audit events matched, and whether a chain was given. */
  checked: { signatures: number; spends: number; events: number; chain: boolean };
}

/** Verifies one approval's passkey assertion over the exact bounds, with the public key it carries. */
async function checkApproval(evidence: MandateEvidence, approval: EvidenceApproval, problem: (code: EvidenceProblemCode, message: string) => void): Promise<boolean> {
  const kept = approval.evidence;
  const who = `the ${approval.party}'s approval`;
  if (!kept || !approval.evidence_hash) return (problem('evidence_missing', `${who} keeps no signed evidence`), false);
  if (evidenceHash(kept) !== approval.evidence_hash) return (problem('evidence_hash_mismatch', `${who}: its evidence does not hash to the evidence_hash recorded with it`), false);
  const { signed } = kept;
  if (signed.auth_req_id !== evidence.auth_req_id || signed.details_hash !== evidence.details_hash || signed.decision !== 'approve') {
    return (problem('signed_other_action', `${who} signed another request, another action or another decision`), false);
  }
  const challenge = base64url(await decisionChallenge(signed));
  try {
    const result = await verifyAuthenticationResponse({
      response: { ...kept.assertion, rawId: kept.assertion.id, clientExtensionResults: {} },
      expectedChallenge: challenge,
      expectedOrigin: kept.origin,
      expectedRPID: kept.rp_id,
      credential: { id: approval.credential_id, publicKey: Buffer.from(kept.credential_public_key, 'base64url'), counter: 0 },
      requireUserVerification: true,
    });
    if (result.verified && kept.assertion.id === approval.credential_id) return true;
  } catch {
    // Reported below as a signature that does not verify.
  }
  problem('signature_invalid', `${who}: the passkey signature does not verify over the mandate's exact bounds`);
  return false;
}

const detailOf = (event: StoredAuditEvent) => event.detail ?? {};

/** The audit events must say what the evidence says: each approval, spend, outcome and the revocation, and no spend the evidence leaves out. */
function checkAudit(evidence: MandateEvidence, problem: (code: EvidenceProblemCode, message: string) => void): number {
  const events = evidence.audit;
  for (const event of events) {
    if (event.tenant !== evidence.tenant || event.auth_req_id !== evidence.auth_req_id) problem('foreign_event', `audit event ${event.seq} belongs to another request`);
  }
  for (const approval of evidence.approvals) {
    const found = events.some((event) => (event.type === 'approved' || event.type === 'party_approved') && detailOf(event).party === approval.party && event.credential_id === approval.credential_id && detailOf(event).evidence_hash === approval.evidence_hash);
    if (!found) problem('approval_not_in_audit', `no audit event records the ${approval.party}'s approval with this evidence`);
  }
  let matched = 0;
  const spentEvents = events.filter((event) => event.type === 'spent');
  for (const spend of evidence.spends) {
    const same = spentEvents.filter((event) => {
      const d = detailOf(event);
      return d.redemption_id === spend.redemption_id && d.transaction_id === spend.transaction_id && d.amount_minor === spend.amount_minor && d.currency === spend.currency && d.payee_id === spend.payee.id;
    });
    if (same.length !== 1) problem('spend_not_in_audit', `spend ${spend.transaction_id}: no single audit event records it as exported`);
    else matched += 1;
    if (spend.outcome) {
      const outcome = spend.outcome;
      const reported = events.some((event) => event.type === 'outcome' && detailOf(event).redemption_id === spend.redemption_id && detailOf(event).status === outcome.status && (detailOf(event).reference ?? null) === (outcome.reference ?? null));
      if (!reported) problem('outcome_not_in_audit', `spend ${spend.transaction_id}: no audit event records its outcome as exported`);
    }
  }
  for (const event of spentEvents) {
    if (!evidence.spends.some((spend) => spend.redemption_id === detailOf(event).redemption_id)) problem('spend_missing', `the audit records spend ${String(detailOf(event).transaction_id)}, which the evidence leaves out`);
  }
  if (evidence.revocation && !events.some((event) => event.type === 'mandate_revoked')) problem('revocation_not_in_audit', 'no audit event records the revocation');
  return matched;
}

/** Each event of the evidence must stand, unchanged, at its place in a chain that verifies; and the chain may name no event of the mandate that the evidence leaves out. */
async function checkAgainstChain(evidence: MandateEvidence, chain: Iterable<unknown>, problem: (code: EvidenceProblemCode, message: string) => void) {
  const lines = [...chain];
  const report = await verifyChain(evidence.tenant, lines);
  if (!report.ok) problem('chain_broken', `the tenant's chain does not verify: ${report.broken?.message ?? 'a reset'}`);
  const bySeq = new Map<number, StoredAuditEvent>();
  for (const line of lines) {
    const value = (typeof line === 'string' ? JSON.parse(line) : line) as StoredAuditEvent | { retention_anchor: unknown };
    if ('seq' in value) bySeq.set(value.seq, value);
  }
  for (const event of evidence.audit) {
    const stands = bySeq.get(event.seq);
    if (!stands || eventHash(stands) !== eventHash(event)) problem('event_not_in_chain', `audit event ${event.seq} (${event.type}) is not in the chain as exported`);
  }
  const exported = new Set(evidence.audit.map((event) => event.seq));
  for (const event of bySeq.values()) {
    if (event.auth_req_id === evidence.auth_req_id && !exported.has(event.seq)) problem('event_missing', `the chain holds event ${event.seq} (${event.type}) of the mandate, which the evidence leaves out`);
  }
}

/**
 * Checks a mandate's evidence ({@link MandateEvidence}), without the server or its store:
 *
 * 1. the bounds hash to their `details_hash` (RFC 8785 JCS, SHA-256);
 * 2. each approval's evidence hashes to the `evidence_hash` it was recorded with, signed this
 *    request, this `details_hash` and `approve`, and its passkey assertion verifies (challenge,
 *    origin, RP ID, user verification, signature) with the public key it names;
 * 3. the audit events record each approval with that evidence hash, each spend and outcome as
 *    exported, the revocation, and no spend the evidence leaves out;
 * 4. given the tenant's chain (the JSON lines of `audit export`), the chain verifies, each event
 *    of the evidence stands in it unchanged at its `seq`, and none of the mandate's is left out.
 *
 * Without a chain, step 4 is skipped (`checked.chain: false`): the events could then have been
 * written to fit, so a dispute should always bring the chain, or a head recorded elsewhere.
 *
 * @see WebAuthn Level 3 §7.2; RFC 8785; docs/mandates.md "Evidence"; docs/audit.md
 */
export async function verifyMandateEvidence(evidence: MandateEvidence, chain?: Iterable<unknown>): Promise<EvidenceReport> {
  const problems: EvidenceProblem[] = [];
  const problem = (code: EvidenceProblemCode, message: string) => void problems.push({ code, message });
  const checked = { signatures: 0, spends: 0, events: 0, chain: chain !== undefined };
  if (typeof evidence !== 'object' || evidence === null || evidence.format !== EVIDENCE_FORMAT || !Array.isArray(evidence.approvals) || !Array.isArray(evidence.spends) || !Array.isArray(evidence.audit)) {
    return { ok: false, problems: [{ code: 'unreadable', message: `not ${EVIDENCE_FORMAT}` }], checked };
  }
  if ((await detailsHash(evidence.authorization_details)) !== evidence.details_hash) problem('details_hash_mismatch', 'the bounds do not hash to their details_hash: they were changed');
  if (evidence.approvals.length === 0) problem('not_approved', 'the mandate has no approval');
  for (const approval of evidence.approvals) if (await checkApproval(evidence, approval, problem)) checked.signatures += 1;
  checked.spends = checkAudit(evidence, problem);
  if (chain !== undefined) await checkAgainstChain(evidence, chain, problem);
  checked.events = evidence.audit.length;
  return { ok: problems.length === 0, problems, checked };
}
