import type { RequestDisplay } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { canView, type Viewer } from '../policy/index.ts';
import { loadRequest, requestDisplay, settleExpiry } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import type { DeviceSession } from './session.ts';

/**
 * The user's pending requests, newest first, as the server displays them for this user: their own,
 * and those that need a role they hold in the tenant (a reviewer's queue). Requests that were
 * decided or expired meanwhile are settled and dropped from the index they were found in.
 */
export async function listInbox(deps: Deps, session: DeviceSession, viewer: Viewer): Promise<RequestDisplay[]> {
  const indexes = [keys.userRequests(session.tenant, session.sub), ...viewer.roles.map((role) => keys.roleRequests(session.tenant, role))];
  const seen = new Set<string>();
  const shown: RequestDisplay[] = [];
  for (const index of indexes) {
    for (const id of await deps.store.setMembers(index)) {
      if (seen.has(id)) continue;
      seen.add(id);
      const found = await loadRequest(deps.store, session.tenant, id);
      const request = found ? await settleExpiry(deps, found) : null;
      if (request?.state !== 'pending') {
        await deps.store.setRemove(index, id);
        continue;
      }
      if (canView({ sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] }, viewer)) {
        shown.push(requestDisplay(request, deps.clock.now(), viewer));
      }
    }
  }
  return shown.sort((a, b) => b.created_at.localeCompare(a.created_at));
}
