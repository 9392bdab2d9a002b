import type { Guard } from '../store/index.ts';
import { inState, stepGuard } from './lifecycle-guards.ts';
import type { Lifecycle, LifecycleTimes, Swap } from './lifecycle-types.ts';
import { MANDATE_FIELDS, mandateOf } from './mandate-fields.ts';
import { approvalField, evidenceField, fromFields } from './request-fields.ts';

/**
 * The decisions on a request of the {@link Lifecycle} (`approveParty`, `approve`, `deny`,
 * `escalate`, `expire` of `TRANSITIONS`) over a {@link Swap}: the guards, fields and entry of each.
 */
export function decisionOps(swap: Swap, times: LifecycleTimes): Pick<Lifecycle, 'approve' | 'deny' | 'escalate' | 'expire'> {
  return {
    approve(fields, approval, now) {
      const current = fromFields(fields);
      const ref = { tenant: current.tenant, auth_req_id: current.auth_req_id };
      // A party that does not hold the request (any more: it was escalated) approves nothing.
      if (!(current.parties ?? ['customer']).includes(approval.party)) return Promise.resolve({ ok: false, fields });
      const others = (current.parties ?? ['customer']).filter((other) => other !== approval.party);
      const last = others.every((other) => fields[approvalField(other)] !== undefined);
      const guards: Guard[] = [
        inState('pending'),
        { field: 'expires_at', op: 'gt', value: now },
        { field: approvalField(approval.party), op: 'absent' },
        // The holder as read: an escalation that landed since hands the request to someone else.
        stepGuard(current),
        ...others.map((other): Guard => {
          const held = fields[approvalField(other)];
          return held === undefined ? { field: approvalField(other), op: 'absent' } : { field: approvalField(other), op: 'eq', value: held };
        }),
      ];
      const given = { sub: approval.sub, device_id: approval.device_id, credential_id: approval.credential_id, at: now, ...(approval.evidence ? { evidence_hash: approval.evidence.hash } : {}) };
      const written = { [approvalField(approval.party)]: JSON.stringify(given), ...(approval.evidence ? { [evidenceField(approval.party)]: approval.evidence.json } : {}) };
      if (!last) {
        const waiting = others.filter((other) => fields[approvalField(other)] === undefined);
        return swap(ref, guards, written, { op: 'approveParty', at: now, party: approval.party, waiting_for: waiting });
      }
      const tokenLifetime = current.token_lifetime ?? times.approvalTokenTtl;
      // A mandate's approval (and so its token) lasts until its end, not a token lifetime; its
      // record is kept a retention period past it, as the evidence of its spends.
      const mandate = mandateOf(current.authorization_details);
      const approvalEnds = mandate ? Date.parse(mandate.ends_at) : now + tokenLifetime * 1000;
      const ttlSeconds = mandate ? Math.max(1, Math.ceil((approvalEnds - now) / 1000)) + times.retentionSeconds : tokenLifetime + times.graceSeconds;
      return swap(
        ref,
        guards,
        {
          ...written,
          state: 'approved',
          decided_at: String(now),
          decided_by: approval.device_id,
          approval_expires_at: String(approvalEnds),
          ...(mandate ? { [MANDATE_FIELDS.startsAt]: String(Date.parse(mandate.starts_at)) } : {}),
        },
        { op: 'approve', at: now, party: approval.party },
        { ttlSeconds },
      );
    },
    deny(ref, decision, now) {
      return swap(
        ref,
        [inState('pending'), { field: 'expires_at', op: 'gt', value: now }],
        { state: 'denied', decided_at: String(now), decided_by: decision.device_id, ...(decision.cause === 'fraud_reported' ? { fraud_reported_at: String(now) } : {}) },
        { op: 'deny', at: now, ...decision },
        { ttlSeconds: times.graceSeconds },
      );
    },
    async escalate(request, now) {
      const step = request.escalation_step ?? 0;
      const next = request.escalation?.[step];
      if (request.state !== 'pending' || !next || now < next.at || now >= request.expires_at) return { ok: false, fields: null };
      return swap(request, [inState('pending'), { field: 'expires_at', op: 'gt', value: now }, stepGuard(request)], { escalation_step: String(step + 1) }, { op: 'escalate', at: now, step: step + 1, from: request.parties ?? ['customer'], to: next.party });
    },
    async expire(request, now) {
      if (request.state !== 'pending' && request.state !== 'approved') return { ok: false, fields: null };
      const deadlineField = request.state === 'pending' ? 'expires_at' : 'approval_expires_at';
      // Every role of the chain was asked and none acted: said so, loudly, in the record and the audit.
      const exhausted = request.state === 'pending' && (request.escalation?.length ?? 0) > 0 && request.escalation_step === request.escalation!.length;
      return swap(
        request,
        [inState(request.state), { field: deadlineField, op: 'lt', value: now + 1 }, ...(exhausted ? [stepGuard(request)] : [])],
        { state: 'expired', expired_at: String(now), ...(exhausted ? { expiry_reason: 'escalation_exhausted' } : {}) },
        { op: 'expire', at: now, from: request.state, ...(exhausted ? { reason: 'escalation_exhausted' as const } : {}) },
        // An approved mandate that ran out keeps its spends for the retention period (evidence).
        { ttlSeconds: request.state === 'approved' && mandateOf(request.authorization_details) ? times.retentionSeconds : times.graceSeconds },
      );
    },
  };
}
