import type { RequestDisplay } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { canView, pendingRequestIds, type Viewer } from '../policy/index.ts';
import { loadRequest, requestDisplay, settleExpiry } from '../requests/index.ts';
import { consoleClientId } from '../clients/index.ts';
import { keys } from '../store/index.ts';
import type { DeviceSession } from './session.ts';

/**
 * The user's pending requests, newest first, as the server displays them for this user: their own,
 * and those that need a role they hold in the tenant (a reviewer's queue). The user's own drop out
 * of their pending requests at their deadline (the sweeper settles them); one found decided or
 * expired meanwhile is settled and dropped from the index it was found in.
 */
export async function listInbox(deps: Deps, session: DeviceSession, viewer: Viewer): Promise<RequestDisplay[]> {
  const { store } = deps;
  const { tenant, sub } = session;
  // Each index with how a request that is over leaves it. The user's own pending requests leave
  // theirs when decided, and drop out by themselves at their deadline. An id there whose request is
  // not found is kept: its place is taken before the request is written (the limit is counted
  // first), so it may be one being made right now. The set `userRequests` is where the user's own
  // were kept before; it is read until what was left in it is over.
  const pendingKey = keys.pendingRequests(tenant, sub);
  const indexes = [
    { ids: () => pendingRequestIds(store, tenant, sub, deps.clock.now()), drop: (id: string) => store.sortedRemove(pendingKey, id), keepMissing: true },
    ...[keys.userRequests(tenant, sub), ...viewer.roles.map((role) => keys.roleRequests(tenant, role))].map((key) => ({
      ids: () => store.setMembers(key),
      drop: (id: string) => store.setRemove(key, id),
      keepMissing: false,
    })),
  ];
  const testClient = await consoleClientId(store, tenant);
  const seen = new Set<string>();
  const shown: RequestDisplay[] = [];
  for (const index of indexes) {
    for (const id of await index.ids()) {
      if (seen.has(id)) continue;
      seen.add(id);
      const found = await loadRequest(store, tenant, id);
      if (!found && index.keepMissing) continue;
      const request = found ? await settleExpiry(deps, found) : null;
      if (request?.state !== 'pending') {
        await index.drop(id);
        continue;
      }
      if (canView({ sub: request.sub, parties: request.parties ?? ['customer'], approvals: request.approvals ?? [] }, viewer)) {
        shown.push(requestDisplay(request, deps.clock.now(), viewer, testClient));
      }
    }
  }
  return shown.sort((a, b) => b.created_at.localeCompare(a.created_at));
}
