import { displayAction, totalsPerCurrency, type PartyDisplay, type RequestDisplay } from '@countersign/shared';
import { partyFor, roleOf, type Viewer } from '../policy/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { escalationView } from './escalation-view.ts';
import { currentDeadline, effectiveState, type ApprovalRequest } from './request-record.ts';

/** Where each required party stands, in the policy's order. */
function approvalsShown(request: ApprovalRequest): PartyDisplay[] {
  const approvals = request.approvals ?? [];
  return (request.parties ?? ['customer']).map((party) => {
    const approval = approvals.find((candidate) => candidate.party === party);
    return {
      party,
      label: party === 'customer' ? 'Customer' : roleOf(party)!,
      status: approval ? 'approved' : 'waiting',
      approved_at: approval ? new Date(approval.at).toISOString() : null,
    };
  });
}

/**
 * What the approver sees, computed from the stored request alone (never from model text):
 * each action's display, the requesting client's name, the `binding_message`, time left, the
 * policy tier and where each required party stands.
 *
 * With a `viewer` (a device's user), it also says what that user may do: the party they would
 * approve as, whether "this wasn't me" is offered (to the person the request is for), and, under
 * number matching, the three codes to pick from (only to the person it is for, who sees the code
 * on the agent's side; never the code itself). Without one (the operator's view), `viewer` and
 * `number_matching` are null.
 *
 * @param consoleClientId - the tenant's console client (see `clients/console-client-id.ts`), or
 *   null when it has none: given, the display says whether the request is a console test
 *   (`test`). The device views and the operator's views give it, so the phone and the console can
 *   mark a test request as one.
 */
export function requestDisplay(request: ApprovalRequest, nowMs: number, viewer?: Viewer, consoleClientId?: string | null): RequestDisplay {
  const deadline = currentDeadline(request);
  const state = effectiveState(request, nowMs);
  const pending = state === 'pending';
  const party = viewer && pending ? partyFor({ sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] }, viewer) : null;
  return {
    auth_req_id: request.auth_req_id,
    state,
    client_name: request.client_name,
    binding_message: request.binding_message,
    actions: request.authorization_details.map(displayAction),
    totals: totalsPerCurrency(request.authorization_details),
    created_at: new Date(request.created_at).toISOString(),
    expires_at: new Date(deadline).toISOString(),
    seconds_left: request.state === 'pending' || request.state === 'approved' ? secondsUntil(deadline, nowMs) : 0,
    outcome: request.outcome,
    tier: request.tier ?? 'standard',
    approvals: approvalsShown(request),
    ...(request.escalation?.length ? { escalation: escalationView(request)! } : {}),
    number_matching: party === 'customer' && request.code_candidates ? { candidates: [...request.code_candidates] } : null,
    ...(consoleClientId === undefined ? {} : { test: consoleClientId !== null && request.client_id === consoleClientId }),
    viewer: viewer ? { party, can_decide: party !== null || (pending && viewer.sub === request.sub), can_report: pending && viewer.sub === request.sub } : null,
  };
}
