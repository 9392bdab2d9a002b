import { CountersignError, displayAction, type ActionDisplay, type AuthorizationDetails, type MandateStatus, type OutcomeReport } from '@countersign/shared';
import type { StoredAuditEvent } from '../../audit/index.ts';
import type { Deps } from '../../deps.ts';
import type { ApprovalEvidence } from '../../devices/approval-evidence.ts';
import { evidenceField, isRequestId, mandateOf, requestOf, spendsOf } from '../../requests/index.ts';
import { keys } from '../../store/index.ts';
import { mandateStatus } from '../mandate-view.ts';

/** The format name and version of {@link MandateEvidence}. */
export const EVIDENCE_FORMAT = 'countersign-mandate-evidence/1';

/** One party's approval of the mandate, with what it signed (null for an approval kept without evidence). */
export interface EvidenceApproval {
  party: string;
  sub: string;
  device_id: string;
  credential_id: string;
  /** RFC 3339 UTC. */
  approved_at: string;
  evidence_hash: string | null;
  evidence: ApprovalEvidence | null;
}

/** One spend, as its mandate's record holds it. `amount_minor` in the currency's minor unit; times RFC 3339 UTC. */
export interface EvidenceSpend {
  redemption_id: string;
  transaction_id: string;
  amount_minor: number;
  currency: string;
  payee: { id: string; name: string };
  purpose: string;
  /** `details_hash` of the one-payment `authorization_details` the client presented for it. */
  payment_hash: string;
  spent_at: string;
  outcome: (OutcomeReport & { reported_at: string }) | null;
}

/**
 * A mandate's dispute evidence (`GET /api/admin/mandates/{auth_req_id}/evidence`): the bounds as
 * approved and their hash, the bounds in the words the person read, each approval with the passkey
 * assertion over those bounds, every spend with its outcome, the revocation, and every audit event
 * filed under the mandate as it stands in the tenant's hash chain. {@link verifyMandateEvidence}
 * checks it, alone and against an export of the chain. See docs/mandates.md "Evidence".
 */
export interface MandateEvidence {
  format: typeof EVIDENCE_FORMAT;
  /** RFC 3339 UTC, from the injected clock. */
  exported_at: string;
  tenant: string;
  auth_req_id: string;
  client_id: string;
  client_name: string;
  sub: string;
  authorization_details: AuthorizationDetails;
  details_hash: string;
  /** What the person was shown, computed again from `authorization_details` by this server. */
  display: ActionDisplay;
  status: MandateStatus;
  /** RFC 3339 UTC and who revoked it (a device id, or `admin`), or null. */
  revocation: { at: string; by: string } | null;
  approvals: EvidenceApproval[];
  /** Oldest first. */
  spends: EvidenceSpend[];
  /** The chain events of the mandate, in chain order (each with its `seq` and `prev_hash`). */
  audit: StoredAuditEvent[];
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Builds a mandate's {@link MandateEvidence} from its record and its audit view. Read-only.
 *
 * @throws CountersignError `not_found` (404: no such request in the tenant, or not a mandate, or
 *   its record is gone past the audit retention).
 */
export async function exportMandateEvidence(deps: Pick<Deps, 'store' | 'audit' | 'clock'>, tenant: string, authReqId: string): Promise<MandateEvidence> {
  const fields = isRequestId(authReqId) ? await deps.store.hashGet(keys.request(tenant, authReqId)) : null;
  const request = requestOf(fields);
  const mandate = request ? mandateOf(request.authorization_details) : null;
  if (!fields || !request || !mandate) throw new CountersignError('not_found', 'No such mandate.');
  const audit = await deps.audit.forRequest(tenant, authReqId);
  return {
    format: EVIDENCE_FORMAT,
    exported_at: iso(deps.clock.now()),
    tenant,
    auth_req_id: request.auth_req_id,
    client_id: request.client_id,
    client_name: request.client_name,
    sub: request.sub,
    authorization_details: request.authorization_details,
    details_hash: request.details_hash,
    display: displayAction(mandate),
    status: mandateStatus(request, deps.clock.now()),
    revocation: request.revoked_at === undefined ? null : { at: iso(request.revoked_at), by: request.revoked_by ?? '' },
    approvals: (request.approvals ?? []).map((given) => {
      const kept = fields[evidenceField(given.party)];
      return {
        party: given.party,
        sub: given.sub,
        device_id: given.device_id,
        credential_id: given.credential_id,
        approved_at: iso(given.at),
        evidence_hash: given.evidence_hash ?? null,
        evidence: kept ? (JSON.parse(kept) as ApprovalEvidence) : null,
      };
    }),
    spends: spendsOf(fields).map((spend) => ({
      redemption_id: spend.redemption_id,
      transaction_id: spend.transaction_id,
      amount_minor: spend.amount_minor,
      currency: spend.currency,
      payee: spend.payee,
      purpose: spend.purpose,
      payment_hash: spend.payment_hash,
      spent_at: iso(spend.at),
      outcome: spend.outcome ? { ...outcomeReport(spend.outcome), reported_at: iso(spend.outcome.at) } : null,
    })),
    audit,
  };
}

function outcomeReport(outcome: OutcomeReport & { at: number }): OutcomeReport {
  const { at: _at, ...report } = outcome;
  return report;
}
