import { CountersignError, type ApprovalParty } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { requestOf, wrongPickToken, type ApprovalRequest, type DenialCause } from '../requests/index.ts';
import { auditRefusal, type VerifiedAssertion } from './verify-assertion.ts';
import type { DeviceSession } from './session.ts';

/**
 * Moves a pending request to `denied` (`Lifecycle.deny`, guarded by the deadline): any one
 * required party saying no denies it, whatever the others did. A fraud report ("this wasn't me")
 * also blocks the client from asking this user again until an operator clears the block
 * (`DELETE /api/admin/users/{sub}/blocks/{client_id}`): that, the audit, the history and the
 * client's notification are the transition's consequences (`consequences.ts`).
 *
 * @throws CountersignError `request_not_pending` (409), `expired_token`.
 * @see docs/guarantees.md "Reviewers" (any party denying denies), "Push fatigue" ("this wasn't me")
 */
export async function recordDenial(deps: Deps, verified: VerifiedAssertion, party: ApprovalParty, cause: DenialCause, pick?: string): Promise<ApprovalRequest> {
  const { request, device } = verified;
  const result = await deps.lifecycle.deny(request, { party, cause, sub: verified.record.sub, device_id: device.device_id, credential_id: device.credential_id, ...(pick ? { pick } : {}) }, deps.clock.now());
  if (!result.ok) {
    const current = requestOf(result.fields);
    if (current && current.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${current.state}.`);
    throw new CountersignError('expired_token', 'The request has expired.');
  }
  return result.request;
}

/**
 * A number-matching approval that picked the wrong code: the request is denied at once (`denied`,
 * cause `wrong_binding_code`), so the agent gets `access_denied` and a ping or push client its
 * notification, and the pick is audited as refused (`refused`, `wrong_binding_code`). With three
 * candidates, a person who does not see the agent's screen could otherwise tap each code in turn
 * and be sure to approve; one pick gives a guess one chance in three, and the request it was
 * spent on is gone (as Microsoft Authenticator and Duo Verified Push do). A new request draws new codes.
 *
 * The deny compare-and-swap is the first write once the passkey's answer has verified (the
 * challenge was taken and the counter saved by then, as for every decision): nothing is audited
 * before it. A right pick sent a moment later, on this instance or another, needs as many round
 * trips to reach its own swap, so the two race on equal terms and whichever swap the store runs
 * first decides; the other answers `request_not_pending`. What is left: two concurrent picks are
 * settled by that order alone, so a scripted client that holds the passkey and sends all three
 * prompts at once gets one chance in three, as one honest guess does, and never better (the first
 * swap decides, a wrong one denies).
 *
 * @throws CountersignError `wrong_binding_code` (400) once the request is denied;
 *   `request_not_pending` (409) or `expired_token` when it was settled or expired meanwhile (the
 *   wrong pick is audited either way).
 * @see docs/security.md "Number matching"; CIBA Core 1.0 §10.2, §10.3 (the client is told of the denial)
 */
export async function recordWrongPick(deps: Deps, session: DeviceSession, verified: VerifiedAssertion): Promise<never> {
  const { request, device } = verified;
  // The pick's own id: its refusal is audited under it on every path, so it lands once even when
  // the denial's reply is lost and its entry audits the pick as well.
  const pick = deps.ids(9);
  try {
    // The denial's consequences audit the pick (`refused`, `wrong_binding_code`) and then the denial.
    await recordDenial(deps, verified, 'customer', 'wrong_binding_code', pick);
  } catch (error) {
    // Settled or expired meanwhile, or the outcome is unknown: the pick was wrong all the same.
    await auditRefusal(deps, session, request.auth_req_id, 'wrong_binding_code', { decision: 'approve' }, device, { once: wrongPickToken(pick) });
    throw error;
  }
  throw new CountersignError('wrong_binding_code', 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.');
}
