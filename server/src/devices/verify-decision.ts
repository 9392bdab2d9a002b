import { CountersignError, type Decision } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { partyFor, wasHolder, type Viewer } from '../policy/index.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { recordApproval } from './record-approval.ts';
import { recordDenial, recordWrongPick } from './record-denial.ts';
import type { DeviceSession } from './session.ts';
import { auditRefusal, verifyAssertion } from './verify-assertion.ts';

/** Options of {@link verifyDecision}. */
export interface DecisionExtras {
  /** Number matching: the code the person says they picked; must be the one their prompt signed. */
  selected_code?: string;
  /** "This wasn't me": a denial that also records a fraud report and blocks the client. */
  report?: boolean;
}

/**
 * Verifies one user's decision on a request and records it. The passkey assertion is checked
 * first ({@link verifyAssertion}: single-use challenge over the stored `details_hash`, user
 * verification, this user's passkey); then:
 *
 * - **approve**: the user must still have a party to approve as (the person the request is for,
 *   or a reviewer holding a role it needs); under number matching the code the prompt signed must
 *   be the request's `binding_code`, else the pick is refused and the request denied ({@link recordWrongPick}).
 *   The approval is recorded for that party; the request becomes `approved` only with the last one.
 * - **deny**: any party still to approve, or the person the request is for, denies it for everyone.
 * - **report** ("this wasn't me", with the deny prompt): only the person the request is for; it
 *   denies, records a fraud report and blocks the client for this user.
 *
 * Nothing in a decision carries the action: what is signed is the stored `details_hash`, so a
 * reviewer (or anyone) can approve or deny exactly the stored action, never change it.
 *
 * @throws CountersignError `invalid_assertion`, `counter_regression`, `not_found`, `expired_token`,
 *   `request_not_pending` (409), `party_already_approved` (409), `party_escalated` (409: the
 *   request was escalated past this user's party), `wrong_binding_code` (400),
 *   `invalid_request` (a report by someone else than the person the request is for).
 * @see docs/design.md guarantee 4; docs/guarantees.md "Reviewers", "Push fatigue"
 */
export async function verifyDecision(deps: Deps, session: DeviceSession, viewer: Viewer, authReqId: string, decision: Decision, response: Record<string, unknown>, options: DecisionExtras = {}): Promise<ApprovalRequest> {
  const verified = await verifyAssertion(deps, session, viewer, authReqId, decision, response);
  const { request, record } = verified;
  const parties = { sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] };
  const party = partyFor(parties, viewer);
  const isCustomer = viewer.sub === request.sub;

  const escalatedAway = !party && wasHolder(request, viewer);
  const refuse = async (code: 'invalid_request' | 'party_already_approved' | 'party_escalated', description: string) => {
    await auditRefusal(deps, session, authReqId, code, { decision: options.report ? 'report' : decision }, verified.device);
    return new CountersignError(code, description);
  };
  if (options.report) {
    if (!isCustomer) throw await refuse('invalid_request', 'Only the person the request is for can report it.');
    return recordDenial(deps, verified, 'customer', 'fraud_reported');
  }
  if (decision === 'deny') {
    if (!party && !isCustomer && escalatedAway) throw await refuse('party_escalated', 'Your time to decide passed; the request was escalated to the next approver.');
    if (!party && !isCustomer) throw await refuse('party_already_approved', 'You have already approved this request.');
    return recordDenial(deps, verified, party ?? 'customer', 'denied');
  }

  // Escalated: the window of this user's party passed and the request went to the next role.
  if (escalatedAway) throw await refuse('party_escalated', 'Your time to decide passed; the request was escalated to the next approver, who decides it now.');
  // The party the prompt was made for must still be open for this user (roles can change, others can approve meanwhile).
  if (!party || (record.party !== undefined && record.party !== party)) {
    throw await refuse('party_already_approved', 'There is nothing left for you to approve on this request.');
  }
  if (party === 'customer' && request.binding_code !== undefined) {
    if (record.selected_code === undefined || options.selected_code !== record.selected_code) {
      await auditRefusal(deps, session, authReqId, 'invalid_assertion', { decision }, verified.device);
      throw new CountersignError('invalid_assertion', 'Pick the code shown to you, then approve with that code’s prompt.');
    }
    if (record.selected_code !== request.binding_code) return recordWrongPick(deps, session, verified);
  }
  return recordApproval(deps, verified, party, response);
}
