import type { ApprovalParty } from '@countersign/shared';
import { awaitingParties, roleOf } from '../policy/index.ts';
import type { ApprovalRequest } from '../requests/index.ts';

const list = new Intl.ListFormat('en', { type: 'conjunction' });

/** A party in words: the user the request is for, or a reviewer of a role. */
function partyWords(party: ApprovalParty): string {
  const role = roleOf(party);
  // Single quotes: an error_description may not hold `"` (RFC 6749 §5.2).
  return role === null ? 'the user' : `a reviewer with the role '${role}'`;
}

/**
 * The `error_description` of `authorization_pending` (CIBA Core §11): which parties the pending
 * request still waits for, and who has approved already, so the agent can tell "the person has not
 * answered" from "the person approved; a finance reviewer has not". It names roles and never a
 * reviewer: the client learns what its request needs, not who holds the role.
 *
 * @example
 * `The user has not decided yet.` (the user alone, as most requests)
 * `Waiting for the approval of the user and a reviewer with the role 'reviewer:finance'.`
 * `The user has approved; still waiting for the approval of a reviewer with the role 'reviewer:finance'.`
 */
export function pendingDescription(request: ApprovalRequest): string {
  const parties = request.parties ?? ['customer'];
  const approvals = request.approvals ?? [];
  const awaiting = awaitingParties({ parties, approvals });
  // Handed on by the tier's escalation chain: say so, so the agent can tell why someone else is asked.
  if (request.escalation_step) return `Escalated (step ${request.escalation_step} of ${request.escalation?.length ?? request.escalation_step}): waiting for the approval of ${list.format(awaiting.map(partyWords))}.`;
  if (approvals.length === 0 && awaiting.length === 1 && awaiting[0] === 'customer') return 'The user has not decided yet.';
  const needed = list.format(awaiting.map(partyWords));
  if (approvals.length === 0) return `Waiting for the approval of ${needed}.`;
  const done = list.format(approvals.map((approval) => partyWords(approval.party)));
  const have = approvals.length === 1 ? 'has' : 'have';
  return `${done.charAt(0).toUpperCase()}${done.slice(1)} ${have} approved; still waiting for the approval of ${needed}.`;
}
