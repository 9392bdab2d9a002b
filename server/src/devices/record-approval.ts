import { CountersignError, type ApprovalParty } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { fromFields, mandateOf, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { approvalEvidence, evidenceHash } from './approval-evidence.ts';
import type { VerifiedAssertion } from './verify-assertion.ts';

/** Compare-and-swap attempts before giving up; each lost one means another party's approval landed. */
const ATTEMPTS = 8;

/**
 * Records one party's approval of a pending request, and moves the request to `approved` when it
 * was the last party missing (`Lifecycle.approve`: one compare-and-swap whose guards pin every
 * other party's slot as read, so two parties approving at once cannot both think they were last,
 * nor both miss it: one swap fails, re-reads and tries again). What follows (audit, history, the
 * queues, the deadline, the client's notification) is the transition's consequences.
 *
 * A mandate's approval also keeps its evidence (the signed challenge input, the assertion, the
 * public key): a standing permission is disputed long after its prompt, and its export must let
 * anyone check the signature over the exact bounds again (docs/mandates.md "Evidence").
 *
 * @param response - the assertion as the device sent it (kept only for a mandate).
 * @throws CountersignError `party_already_approved` (409: this party, or this user for another
 *   party, already approved), `party_escalated` (409: handed to the next role meanwhile), `request_not_pending` (409), `expired_token`, `temporarily_unavailable`.
 * @see docs/guarantees.md "Reviewers"; docs/reliability.md "The request lifecycle" (every
 * transition is one atomic swap)
 */
export async function recordApproval(deps: Deps, verified: VerifiedAssertion, party: ApprovalParty, response: Record<string, unknown>): Promise<ApprovalRequest> {
  const { request, device } = verified;
  const key = keys.request(request.tenant, request.auth_req_id);
  const kept = mandateOf(request.authorization_details) ? approvalEvidence({ signed: verified.signed, response, publicKey: device.public_key, rpId: deps.config.rpId, origin: deps.config.publicUrl }) : null;
  const evidence = kept ? { json: JSON.stringify(kept), hash: evidenceHash(kept) } : undefined;
  const approval = { party, sub: verified.record.sub, device_id: device.device_id, credential_id: device.credential_id, ...(evidence ? { evidence } : {}) };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // The first attempt starts from the record as the assertion's check read it; a stale one fails the swap's guards.
    const fields = attempt === 0 ? verified.fields : await deps.store.hashGet(key);
    const now = deps.clock.now();
    if (!fields) throw new CountersignError('expired_token', 'The request has expired.');
    const current = fromFields(fields);
    if (current.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${current.state}.`);
    if (now >= current.expires_at) throw new CountersignError('expired_token', 'The request has expired.');
    // Escalated since the assertion's check read it: this party no longer holds the request.
    if (!(current.parties ?? ['customer']).includes(party)) throw new CountersignError('party_escalated', 'Your time to decide passed; the request was escalated to the next approver.');
    if ((current.approvals ?? []).some((given) => given.party === party || given.sub === approval.sub)) {
      throw new CountersignError('party_already_approved', 'You have already approved this request; it is waiting for the others.');
    }
    const result = await deps.lifecycle.approve(fields, approval, now);
    if (result.ok) return result.request;
  }
  throw new CountersignError('temporarily_unavailable', 'The request changed too often to record the approval; try again.');
}
