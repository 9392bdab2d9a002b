import { displayAction } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { takePushSlot } from '../policy/index.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';

/**
 * Sends a new request to the devices of each recipient (the person it is for, when they must
 * approve, and every reviewer of a role it needs) and audits each push. A recipient over the
 * policy's push rate is not pushed: the skip is audited (`push_skipped`, reason
 * `push_rate_limited`) and the request still stands in their inbox. Push fatigue is how people
 * learn to tap "approve" without reading; a cap on pushes keeps a flood from reaching the phone.
 *
 * @see issue 4 "Push fatigue"; RFC 8030 (Web Push)
 */
export async function pushRequest(deps: Deps, request: ApprovalRequest, recipients: string[]): Promise<void> {
  const first = displayAction(request.authorization_details[0]!);
  for (const sub of recipients) {
    const base = { tenant: request.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub, channel: 'push' as const };
    if (!(await takePushSlot(deps, request.tenant, sub, request.auth_req_id))) {
      await deps.audit.record({ ...base, type: 'push_skipped', reason: 'push_rate_limited', detail: { window_seconds: deps.policy.limits.pushes_per_user.window_seconds } });
      continue;
    }
    const result = await deps.push.notifyUser({
      tenant: request.tenant,
      sub,
      auth_req_id: request.auth_req_id,
      summary: `${request.client_name}: ${first.summary}`,
      ttlSeconds: secondsUntil(request.expires_at, deps.clock.now()),
    });
    await deps.audit.record({ ...base, type: 'pushed', detail: { sent: result.sent, removed: result.removed, failed: result.failed } });
  }
}
