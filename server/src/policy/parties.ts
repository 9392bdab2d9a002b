import type { ApprovalParty } from '@countersign/shared';
import type { Tier } from './policy-schema.ts';

/** The parties a tier asks for, in the policy's order: `customer` and `role:<role>`. */
export function partiesOf(tier: Tier): ApprovalParty[] {
  return tier.approvers.map((approver) => (approver === 'customer' ? 'customer' : (`role:${approver.role}` as const)));
}

/** The role a party stands for, or null for the customer. */
export function roleOf(party: ApprovalParty): string | null {
  return party === 'customer' ? null : party.slice('role:'.length);
}

/** One party's approval, recorded on the request. Times are epoch ms. */
export interface PartyApproval {
  party: ApprovalParty;
  sub: string;
  device_id: string;
  credential_id: string;
  at: number;
  /** A mandate's approval: base64url(SHA-256(JCS)) of its kept evidence (`evidence:<party>`), also in its audit event. */
  evidence_hash?: string;
}

/** Who is looking at, or deciding, a request: a user of the request's tenant and their roles. */
export interface Viewer {
  sub: string;
  roles: string[];
}

/** What {@link partyFor} and {@link canView} read of a request. */
export interface PartiesOfRequest {
  sub: string;
  parties: ApprovalParty[];
  approvals: PartyApproval[];
  /** The parties that held it before an escalation handed it on (they may still look, not approve). */
  held_before?: ApprovalParty[];
}

/**
 * Whether a user may see a request: the person it is for, or a holder of a role one of its parties
 * needs. Tenancy is checked before (it is part of every key, docs/design.md guarantee 5).
 */
export function canView(request: PartiesOfRequest, viewer: Viewer): boolean {
  if (viewer.sub === request.sub) return true;
  return [...request.parties, ...(request.held_before ?? [])].some((party) => {
    const role = roleOf(party);
    return role !== null && viewer.roles.includes(role);
  });
}

/**
 * The party a user would approve as, or null when nothing is left for them. Separation of duties:
 * the person the request is for never approves it as a reviewer, and one user fills one party, so
 * "customer and a finance reviewer" always takes two people with two passkeys.
 */
export function partyFor(request: PartiesOfRequest, viewer: Viewer): ApprovalParty | null {
  const done = new Set(request.approvals.map((approval) => approval.party));
  if (viewer.sub === request.sub) return request.parties.includes('customer') && !done.has('customer') ? 'customer' : null;
  if (request.approvals.some((approval) => approval.sub === viewer.sub)) return null;
  return request.parties.find((party) => !done.has(party) && party !== 'customer' && viewer.roles.includes(roleOf(party)!)) ?? null;
}

/**
 * The parties whose approval a request still waits for, in the policy's order: those of its
 * parties that have no approval yet. Meaningful while it is pending.
 */
export function awaitingParties(request: Pick<PartiesOfRequest, 'parties' | 'approvals'>): ApprovalParty[] {
  const done = new Set(request.approvals.map((approval) => approval.party));
  return request.parties.filter((party) => !done.has(party));
}

/**
 * Whether a viewer could have decided as one of the parties that held the request before an
 * escalation handed it on (and so is told `party_escalated`, not that it had nothing to do).
 */
export function wasHolder(request: Pick<PartiesOfRequest, 'sub' | 'held_before'>, viewer: Viewer): boolean {
  return (request.held_before ?? []).some((party) => (party === 'customer' ? viewer.sub === request.sub : viewer.sub !== request.sub && viewer.roles.includes(roleOf(party)!)));
}

/** What {@link approverCoverage} finds. */
export interface ApproverCoverage {
  /** The roles nobody holds but the user the request is for (who never reviews their own request). */
  unheld: string[];
  /** True when every role can have an approver of its own: a holder other than the user, a different person for each role. */
  fillable: boolean;
}

/**
 * Whether a request whose parties need `roles` could ever be approved by the tenant's users as they
 * stand: each role needs one approver holding it, never the user the request is for, and one user
 * fills one party (see {@link partyFor}), so two roles held by the same single person cannot both
 * be filled. Finds an approver for each role by augmenting paths (a bipartite matching; a tier
 * names at most five approvers).
 *
 * @param holders - per role, in the order of `roles`, the `sub`s holding it.
 * @param sub - the user the request is for.
 */
export function approverCoverage(roles: string[], holders: string[][], sub: string): ApproverCoverage {
  const candidates = roles.map((_, i) => (holders[i] ?? []).filter((holder) => holder !== sub));
  const unheld = roles.filter((_, i) => candidates[i]!.length === 0);
  if (unheld.length > 0) return { unheld, fillable: false };
  const filledBy = new Map<string, number>();
  const fill = (role: number, tried: Set<string>): boolean => {
    for (const holder of candidates[role]!) {
      if (tried.has(holder)) continue;
      tried.add(holder);
      const other = filledBy.get(holder);
      if (other === undefined || fill(other, tried)) {
        filledBy.set(holder, role);
        return true;
      }
    }
    return false;
  };
  return { unheld, fillable: candidates.every((_, role) => fill(role, new Set())) };
}
