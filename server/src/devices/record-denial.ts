import { CountersignError, type ApprovalParty } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { fromFields, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { blockClient } from '../users/index.ts';
import { recordHistory } from './record-history.ts';
import { afterSettled } from './settle-decision.ts';
import { auditRefusal, type VerifiedAssertion } from './verify-assertion.ts';
import type { DeviceSession } from './session.ts';

/** Why a request is denied: a party said no, the person said "this wasn't me", or too many wrong codes. */
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
 * A number-matching approval that picked the wrong code: refused (`wrong_binding_code`) and
 * audited, and counted on the request with a compare-and-swap; the pick that reaches the policy's
 * `max_wrong_code_picks` denies the request. Someone who does not see the agent's screen can only
 * guess, and three guesses out of three candidates must not add up to an approval.
 *
 * @throws CountersignError `wrong_binding_code` (400) always, with `attempts_left` in the body
 *   (0 once the request is denied).
 */
export async function recordWrongPick(deps: Deps, session: DeviceSession, verified: VerifiedAssertion): Promise<never> {
  const { request, device } = verified;
  const max = deps.policy.limits.max_wrong_code_picks;
  const key = keys.request(request.tenant, request.auth_req_id);
  let picks = request.wrong_picks ?? 0;
  let counted = false;
  for (let attempt = 0; attempt < 8 && !counted; attempt++) {
    const now = deps.clock.now();
    const result = await deps.store.compareAndSet(
      key,
      [
        { field: 'state', op: 'eq', value: 'pending' },
        { field: 'expires_at', op: 'gt', value: now },
        picks === 0 ? { field: 'wrong_picks', op: 'absent' } : { field: 'wrong_picks', op: 'eq', value: String(picks) },
      ],
      { wrong_picks: String(picks + 1) },
    );
    if (result.ok) {
      counted = true;
      picks += 1;
      continue;
    }
    const current = result.fields ? fromFields(result.fields) : null;
    if (!current || current.state !== 'pending' || now >= current.expires_at) break;
    picks = current.wrong_picks ?? 0;
  }
  await auditRefusal(deps, session, request.auth_req_id, 'wrong_binding_code', { decision: 'approve', wrong_picks: picks }, device);
  if (!counted) throw new CountersignError('request_not_pending', 'The request was settled meanwhile.');
  if (picks >= max) {
    await recordDenial(deps, verified, 'customer', 'wrong_binding_code').catch((error: unknown) => {
      // Settled meanwhile by someone else: the request is no longer approvable either way.
      if (!(error instanceof CountersignError)) throw error;
    });
  }
  throw new CountersignError('wrong_binding_code', picks >= max ? 'That was not the code shown to you. The request is denied.' : 'That is not the code shown to you. Check the code and pick again.', {
    body: { attempts_left: Math.max(0, max - picks) },
  });
}
