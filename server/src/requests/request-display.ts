import { displayAction, type RequestDisplay } from '@countersign/shared';
import { secondsUntil } from '../runtime/index.ts';
import { currentDeadline, effectiveState, type ApprovalRequest } from './request-record.ts';

/**
 * What the approver sees, computed from the stored request alone (never from model text):
 * each action's display, the requesting client's name, the `binding_message` and time left.
 */
export function requestDisplay(request: ApprovalRequest, nowMs: number): RequestDisplay {
  const deadline = currentDeadline(request);
  return {
    auth_req_id: request.auth_req_id,
    state: effectiveState(request, nowMs),
    client_name: request.client_name,
    binding_message: request.binding_message,
    actions: request.authorization_details.map(displayAction),
    created_at: new Date(request.created_at).toISOString(),
    expires_at: new Date(deadline).toISOString(),
    seconds_left: request.state === 'pending' || request.state === 'approved' ? secondsUntil(deadline, nowMs) : 0,
    outcome: request.outcome,
  };
}
