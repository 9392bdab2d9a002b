import { CountersignError, type ApprovalParty } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { approvalField, fromFields, type ApprovalRequest } from '../requests/index.ts';
import { keys, type Guard } from '../store/index.ts';
import { recordHistory } from './record-history.ts';
import { afterSettled, announce } from './settle-decision.ts';
import type { VerifiedAssertion } from './verify-assertion.ts';

/** Compare-and-swap attempts before giving up; each lost one means another party's approval landed. */
const ATTEMPTS = 8;

/**
 * Records one party's approval of a pending request, and moves the request to `approved` when it
 * was the last party missing. One compare-and-swap on the request's record decides it: its guards
 * pin the state, the deadline, this party's slot (still empty) and every other party's slot exactly
 * as read (empty, or the approval it holds). Two parties approving at once cannot both think they
 * were last, nor both miss it: one swap fails, re-reads and tries again. The approval token's
 * lifetime (the tier's) starts at the final approval.
 *
 * @throws CountersignError `party_already_approved` (409: this party, or this user for another
 *   party, already approved), `request_not_pending` (409), `expired_token`, `temporarily_unavailable`.
 * @see issue 4 "Reviewers"; DESIGN.md "Request states" (every transition is one atomic swap)
 */
export async function recordApproval(deps: Deps, verified: VerifiedAssertion, party: ApprovalParty): Promise<ApprovalRequest> {
  const { request, device } = verified;
  const key = keys.request(request.tenant, request.auth_req_id);
  const approval = { sub: verified.record.sub, device_id: device.device_id, credential_id: device.credential_id };
  for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
    // The first attempt starts from the record as the assertion's check read it; a stale one fails the swap's guards.
    const fields = attempt === 0 ? verified.fields : await deps.store.hashGet(key);
    const now = deps.clock.now();
    if (!fields) throw new CountersignError('expired_token', 'The request has expired.');
    const current = fromFields(fields);
    if (current.state !== 'pending') throw new CountersignError('request_not_pending', `The request is already ${current.state}.`);
    if (now >= current.expires_at) throw new CountersignError('expired_token', 'The request has expired.');
    const approvals = current.approvals ?? [];
    if (approvals.some((given) => given.party === party || given.sub === approval.sub)) {
      throw new CountersignError('party_already_approved', 'You have already approved this request; it is waiting for the others.');
    }
    const others = (current.parties ?? ['customer']).filter((other) => other !== party);
    const last = others.every((other) => fields[approvalField(other)] !== undefined);
    const guards: Guard[] = [
      { field: 'state', op: 'eq', value: 'pending' },
      { field: 'expires_at', op: 'gt', value: now },
      { field: approvalField(party), op: 'absent' },
      ...others.map((other): Guard => {
        const held = fields[approvalField(other)];
        return held === undefined ? { field: approvalField(other), op: 'absent' } : { field: approvalField(other), op: 'eq', value: held };
      }),
    ];
    const tokenLifetime = current.token_lifetime ?? deps.config.approvalTokenTtl;
    const result = await deps.store.compareAndSet(
      key,
      guards,
      {
        [approvalField(party)]: JSON.stringify({ ...approval, at: now }),
        ...(last ? { state: 'approved', decided_at: String(now), decided_by: device.device_id, approval_expires_at: String(now + tokenLifetime * 1000) } : {}),
      },
      last ? { ttlSeconds: tokenLifetime + deps.config.graceSeconds } : {},
    );
    if (!result.ok) continue;
    const updated = fromFields(result.fields!);
    const event = { tenant: request.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub: approval.sub, device_id: device.device_id, credential_id: device.credential_id, channel: 'device' as const };
    // The audit, the history and the bookkeeping do not depend on each other: they go out together.
    if (last) {
      const recorded = Promise.all([deps.audit.record({ ...event, type: 'approved', detail: { party, tier: updated.tier ?? 'standard' } }), recordHistory(deps, updated)]);
      await afterSettled(deps, updated, recorded);
    } else {
      const waiting = others.filter((other) => !updated.approvals?.some((given) => given.party === other));
      await Promise.all([deps.audit.record({ ...event, type: 'party_approved', detail: { party, waiting_for: waiting.join(' ') } }), announce(deps, updated), recordHistory(deps, updated)]);
    }
    return updated;
  }
  throw new CountersignError('temporarily_unavailable', 'The request changed too often to record the approval; try again.');
}
