import type { EscalationView } from '@countersign/shared';
import type { ApprovalRequest } from './request-record.ts';
import { nextEscalation } from './request-deadlines.ts';

/**
 * Where a request stands on its tier's escalation chain, for the client's view, the device's
 * display and the operator: who holds it now and when (and to whom) it goes next. Null when its
 * tier has no chain. A step past the request's own deadline (a shorter `requested_expiry`) is never
 * announced as next: the request expires first.
 * @see docs/escalation.md
 */
export function escalationView(request: ApprovalRequest): EscalationView | null {
  if (!request.escalation?.length) return null;
  const next = request.state === 'pending' ? nextEscalation(request) : null;
  return {
    step: request.escalation_step ?? 0,
    steps: request.escalation.length,
    holder: request.state === 'pending' ? [...(request.parties ?? ['customer'])] : [],
    next_at: next ? new Date(next.at).toISOString() : null,
    next: next?.party ?? null,
  };
}
