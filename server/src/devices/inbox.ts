import type { RequestDisplay } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { loadRequest, requestDisplay, settleExpiry } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import type { DeviceSession } from './session.ts';

/**
 * The user's pending requests, newest first, as the server displays them. Requests that were
 * decided or expired meanwhile are settled and dropped from the inbox.
 */
export async function listInbox(deps: Deps, session: DeviceSession): Promise<RequestDisplay[]> {
  const inboxKey = keys.userRequests(session.tenant, session.sub);
  const ids = await deps.store.setMembers(inboxKey);
  const shown: RequestDisplay[] = [];
  for (const id of ids) {
    const found = await loadRequest(deps.store, session.tenant, id);
    const request = found ? await settleExpiry(deps, found) : null;
    if (request?.state === 'pending' && request.sub === session.sub) shown.push(requestDisplay(request, deps.clock.now()));
    else await deps.store.setRemove(inboxKey, id);
  }
  return shown.sort((a, b) => b.created_at.localeCompare(a.created_at));
}
