import type { Deps } from '../deps.ts';
import { roleOf } from '../policy/index.ts';
import type { ApprovalRequest } from '../requests/index.ts';
import { usersWithRole } from '../users/index.ts';

/** The roles a request's parties need. */
export function rolesOf(request: ApprovalRequest): string[] {
  return (request.parties ?? ['customer']).map(roleOf).filter((role): role is string => role !== null);
}

/** Everyone whose open PWA shows the request: the person it is for, and each holder of a role it needs. */
export async function audienceOf(deps: Pick<Deps, 'store'>, request: ApprovalRequest): Promise<string[]> {
  const reviewers = await Promise.all(rolesOf(request).map((role) => usersWithRole(deps.store, request.tenant, role)));
  return [...new Set([request.sub, ...reviewers.flat()])];
}

/** Tells every open PWA that shows the request where it stands now. */
export async function announce(deps: Pick<Deps, 'store' | 'events'>, request: ApprovalRequest): Promise<void> {
  for (const sub of await audienceOf(deps, request)) deps.events.publish(request.tenant, sub, { auth_req_id: request.auth_req_id, state: request.state });
}

