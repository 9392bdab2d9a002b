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
