import type { AuditEvent } from './audit/index.ts';
import { wrongPickToken, type TransitionEvent } from './requests/index.ts';

/**
 * An audit event of a transition, without its time (the transition's) and its tenant and request
 * (the request's); `once`, when an event has a token of its own rather than its place in the transition.
 */
export type TransitionAudit = Omit<AuditEvent, 'at' | 'tenant' | 'auth_req_id'> & { once?: string };

/**
 * The audit events a transition records (docs/design.md guarantee 9), in order. Each lands once
 * however often its entry is delivered (`once`), stamped with the transition's time
 * (`consequencesOf`'s `audit`, consequences.ts).
 */
export function auditEventsOf({ transition: t, request }: TransitionEvent): TransitionAudit[] {
  const agent = { client_id: request.client_id, sub: request.sub, channel: 'agent' as const };
  const approvalBy = (party: string) => request.approvals?.find((given) => given.party === party);
  switch (t.op) {
    case 'propose':
      return [{ ...agent, type: 'proposed', detail: { details_hash: request.details_hash, expires_in: Math.round((request.expires_at - request.created_at) / 1000), tier: request.tier ?? 'standard', parties: (request.parties ?? ['customer']).join(' '), number_matching: request.binding_code !== undefined } }];
    case 'approveParty':
    case 'approve': {
      const by = approvalBy(t.party);
      const device = { client_id: request.client_id, sub: by?.sub ?? request.sub, ...(by ? { device_id: by.device_id, credential_id: by.credential_id } : {}), channel: 'device' as const };
      // A mandate's approval names the hash of its kept evidence, so its later export is tied to the chain.
      const evidence: Record<string, string> = by?.evidence_hash ? { evidence_hash: by.evidence_hash } : {};
      if (t.op === 'approve') return [{ ...device, type: 'approved', detail: { party: t.party, tier: request.tier ?? 'standard', ...evidence } }];
      return [{ ...device, type: 'party_approved', detail: { party: t.party, waiting_for: t.waiting_for.join(' '), ...evidence } }];
    }
    case 'deny': {
      const device = { client_id: request.client_id, sub: t.sub, device_id: t.device_id, credential_id: t.credential_id, channel: 'device' as const };
      const denied: TransitionAudit = { ...device, type: 'denied', detail: { party: t.party, cause: t.cause } };
      // In the person's order: the wrong pick refused, then the request denied for it.
      // The refusal carries the pick's own token: the pick's caller audits it under the same one when
      // it cannot tell whether the denial applied, and it lands once either way.
      if (t.cause === 'wrong_binding_code') return [{ sub: t.sub, device_id: t.device_id, credential_id: t.credential_id, channel: 'device', type: 'refused', reason: 'wrong_binding_code', detail: { decision: 'approve' }, ...(t.pick ? { once: wrongPickToken(t.pick) } : {}) }, denied];
      // The report is recorded once the block it names has landed (see `auditAfterBlock`).
      return [denied, ...(t.cause === 'fraud_reported' ? [{ ...device, type: 'fraud_reported' as const, detail: { blocked_client_id: request.client_id } }] : [])];
    }
    case 'escalate':
      return [{ ...agent, channel: 'system', type: 'escalated', detail: { from: t.from.join(' '), to: t.to, step: t.step } }];
    case 'expire':
      // The reason says it loudly when every role of the chain let its window pass.
      return [{ ...agent, channel: 'system', type: 'expired', ...(t.reason ? { reason: t.reason } : {}), detail: { from: t.from } }];
    case 'issueToken':
      return [{ ...agent, type: 'token_issued', detail: { jti: t.jti, expires_in: t.expires_in } }];
    case 'redeem':
      return [{ ...agent, type: 'redeemed', detail: { redemption_id: t.redemption_id } }];
    case 'reportOutcome':
      return [{ ...agent, type: 'outcome', detail: { redemption_id: t.redemption_id, status: t.status, ...(t.reference ? { reference: t.reference } : {}) } }];
    case 'spend':
      return [{ ...agent, type: 'spent', detail: { redemption_id: t.redemption_id, transaction_id: t.transaction_id, amount_minor: t.amount_minor, currency: t.currency, payee_id: t.payee_id } }];
    case 'revoke':
      return [{ client_id: request.client_id, sub: request.sub, channel: t.channel, ...(t.channel === 'device' ? { device_id: t.by } : {}), type: 'mandate_revoked', reason: 'mandate_revoked', detail: { by: t.by } }];
    case 'reportSpendOutcome':
      return [{ ...agent, type: 'outcome', detail: { redemption_id: t.redemption_id, transaction_id: t.transaction_id, status: t.status, ...(t.reference ? { reference: t.reference } : {}) } }];
    case 'flagSpendOutcome':
      return [{ ...agent, channel: 'system', type: 'outcome_unknown', detail: { redemption_id: t.redemption_id, transaction_id: t.transaction_id, seconds_since_redeemed: Math.floor((t.at - t.spent_at) / 1000) } }];
    case 'flagOutcome':
      return [{ ...agent, channel: 'system', type: 'outcome_unknown', detail: { redemption_id: t.redemption_id, seconds_since_redeemed: Math.floor((t.at - (request.redeemed_at ?? t.at)) / 1000) } }];
  }
}
