import type { Deps } from '../deps.ts';
import { mandateOf, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';

/**
 * Lists a new mandate under its person (`keys.userMandates`, scored by creation), for the device's
 * mandate list; a consequence of its creation, idempotent (a sorted-set add). Kept as long as the
 * mandate's record may be (its life plus the retention period).
 */
export async function indexMandate(deps: Pick<Deps, 'store' | 'config'>, request: ApprovalRequest): Promise<void> {
  const mandate = mandateOf(request.authorization_details);
  if (!mandate) return;
  const lifeSeconds = Math.max(1, Math.ceil((Date.parse(mandate.ends_at) - request.created_at) / 1000));
  await deps.store.sortedAdd(keys.userMandates(request.tenant, request.sub), request.auth_req_id, request.created_at, lifeSeconds + deps.config.retentionSeconds);
}
