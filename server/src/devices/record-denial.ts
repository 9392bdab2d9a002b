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
  const decided = fromFields(result.fields!);
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
  return decided;
}

/**
 * A number-matching approval that picked the wrong code: the pick is refused and audited
 * (`refused`, `wrong_binding_code`), and the request is denied at once (`denied`, cause
 * `wrong_binding_code`), so the agent gets `access_denied` and a ping or push client its
 * notification. With three candidates, a person who does not see the agent's screen could
 * otherwise tap each code in turn and be sure to approve; one pick gives a guess one chance in
 * three, and the request it was spent on is gone (as Microsoft Authenticator and Duo Verified Push
 * do). A new request draws new codes.
 *
 * @throws CountersignError `wrong_binding_code` (400) once the request is denied;
 *   `request_not_pending` (409) or `expired_token` when it was settled or expired meanwhile (the
 *   wrong pick is audited either way).
 * @see docs/guarantees.md "Push fatigue"; CIBA Core 1.0 §10.2, §10.3 (the client is told of the denial)
 */
export async function recordWrongPick(deps: Deps, session: DeviceSession, verified: VerifiedAssertion): Promise<never> {
  const { request, device } = verified;
  // The refusal is audited first: the pick was wrong whatever the denial below finds.
  await auditRefusal(deps, session, request.auth_req_id, 'wrong_binding_code', { decision: 'approve' }, device);
  await recordDenial(deps, verified, 'customer', 'wrong_binding_code');
  throw new CountersignError('wrong_binding_code', 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.');
}
