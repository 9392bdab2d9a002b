import { CountersignError, type ApprovalParty } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { fromFields, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { blockClient } from '../users/index.ts';
import { recordHistory } from './record-history.ts';
import { afterSettled } from './settle-decision.ts';
import { auditRefusal, type VerifiedAssertion } from './verify-assertion.ts';
import type { DeviceSession } from './session.ts';

/** Why a request is denied: a party said no, the person said "this wasn't me", or the person picked a wrong number-matching code. */
export type DenialCause = 'denied' | 'fraud_reported' | 'wrong_binding_code';

/**
 * Moves a pending request to `denied` in one compare-and-swap guarded by the deadline: any one
 * required party saying no denies it, whatever the others did. A fraud report ("this wasn't me")
 * also records the report and blocks the client from asking this user again until an operator
 * clears the block (`DELETE /api/admin/users/{sub}/blocks/{client_id}`).
 *
 * @throws CountersignError `request_not_pending` (409), `expired_token`.
 * @see issue 4 "Reviewers" (any party denying denies), "Push fatigue" ("this wasn't me")
 */
export async function recordDenial(deps: Deps, verified: VerifiedAssertion, party: ApprovalParty, cause: DenialCause): Promise<ApprovalRequest> {
  const decided = await denyPending(deps, verified, cause);
  await settleDenial(deps, verified, decided, party, cause);
  return decided;
}

/**
 * The compare-and-swap of a denial, `pending → denied` while before the deadline, and nothing else.
 * @throws CountersignError `request_not_pending` (409), `expired_token`.
 */
async function denyPending(deps: Deps, verified: VerifiedAssertion, cause: DenialCause): Promise<ApprovalRequest> {
  const { request, device } = verified;
  const now = deps.clock.now();
  const result = await deps.store.compareAndSet(
    keys.request(request.tenant, request.auth_req_id),
    [
      { field: 'state', op: 'eq', value: 'pending' },
      { field: 'expires_at', op: 'gt', value: now },
    ],
    { state: 'denied', decided_at: String(now), decided_by: device.device_id, ...(cause === 'fraud_reported' ? { fraud_reported_at: String(now) } : {}) },
    { ttlSeconds: deps.config.graceSeconds },
  );
  if (!result.ok) {
    const current = result.fields ? fromFields(result.fields) : null;
    if (current && current.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${current.state}.`);
    throw new CountersignError('expired_token', 'The request has expired.');
  }
  return fromFields(result.fields!);
}

/** What follows a denial's swap: its audit, the fraud report's block, the history, and {@link afterSettled}. */
async function settleDenial(deps: Deps, verified: VerifiedAssertion, decided: ApprovalRequest, party: ApprovalParty, cause: DenialCause): Promise<void> {
  const { request, device } = verified;
  const now = decided.decided_at ?? deps.clock.now();
  const event = { tenant: request.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub: verified.record.sub, device_id: device.device_id, credential_id: device.credential_id, channel: 'device' as const };
  // The audit, the block, the history and the bookkeeping do not depend on each other: they go out together.
  const recorded = Promise.all([
    deps.audit.record({ ...event, type: 'denied', detail: { party, cause } }),
    // The report is audited once the block it names has landed.
    cause === 'fraud_reported'
      ? blockClient(deps.store, request.tenant, request.sub, { client_id: request.client_id, auth_req_id: request.auth_req_id, blocked_at: now }).then(() =>
          deps.audit.record({ ...event, type: 'fraud_reported', detail: { blocked_client_id: request.client_id } }),
        )
      : undefined,
    recordHistory(deps, decided, { sub: verified.record.sub, party, cause }),
  ]);
  await afterSettled(deps, decided, recorded);
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
  const refusal = () => auditRefusal(deps, session, request.auth_req_id, 'wrong_binding_code', { decision: 'approve' }, device);
  let decided: ApprovalRequest;
  try {
    decided = await denyPending(deps, verified, 'wrong_binding_code');
  } catch (error) {
    // Settled or expired meanwhile: the pick was wrong all the same.
    await refusal();
    throw error;
  }
  // The trail tells it in the person's order: the pick refused, then the request denied for it.
  await refusal();
  await settleDenial(deps, verified, decided, 'customer', 'wrong_binding_code');
  throw new CountersignError('wrong_binding_code', 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.');
}
