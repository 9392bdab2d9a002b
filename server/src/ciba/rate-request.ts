import type { ApprovalParty, AuthorizationDetails } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { decideTier, partiesOf, roleOf, type Tier } from '../policy/index.ts';
import type { Store } from '../store/index.ts';
import type { RatedPolicy } from '../tenant-policy/index.ts';
import { usersWithRole } from '../users/index.ts';

/** A request's rating: the tenant's policy revision it is rated under, its tier, the parties and the reviewer roles the tier asks for. */
export interface Rating {
  rated: RatedPolicy;
  tier: Tier;
  parties: ApprovalParty[];
  roles: string[];
  /** The roles of the tier's escalation chain, in order (docs/escalation.md); empty without one. */
  escalationRoles: string[];
}

/** Rates an action under one revision of its tenant's policy ({@link decideTier}). */
export function rate(rated: RatedPolicy, details: AuthorizationDetails): Rating {
  const { tier } = decideTier(rated.policy, details);
  const parties = partiesOf(tier);
  return { rated, tier, parties, roles: parties.map(roleOf).filter((role): role is string => role !== null), escalationRoles: (tier.escalation ?? []).map((step) => step.to.role) };
}

/** Per role, in order, the `sub`s of the tenant's users who hold it. */
export function holdersOf(store: Store, tenant: string, roles: string[]): Promise<string[][]> {
  return Promise.all(roles.map((role) => usersWithRole(store, tenant, role)));
}

/**
 * The rating a new request gets: `guessed` (made under the revision this instance last saw, with
 * the holders of its roles, read beside the request's other reads) when `revision`, the tenant's
 * current one as the store answered, is that one; else the rating under `revision`, and the holders
 * read again when it asks for other roles. So a change made through any instance rates the next
 * request, and the common case costs no round trip of its own.
 * @throws Error as `TenantPolicies.at` (a revision the store does not hold or that no longer validates).
 */
export async function settleRating(deps: Pick<Deps, 'store' | 'policies'>, tenant: string, details: AuthorizationDetails, guessed: { rating: Rating; holders: string[][] }, revision: number): Promise<{ rating: Rating; holders: string[][] }> {
  if (revision === guessed.rating.rated.revision) return guessed;
  const rating = rate(await deps.policies.at(tenant, revision), details);
  const wanted = (of: Rating) => [...of.roles, ...of.escalationRoles];
  const sameRoles = wanted(rating).join(' ') === wanted(guessed.rating).join(' ');
  return { rating, holders: sameRoles ? guessed.holders : await holdersOf(deps.store, tenant, wanted(rating)) };
}
