import { CountersignError } from '@countersign/shared';
import { approverCoverage, type ApproverCoverage } from '../policy/index.ts';

/**
 * The refusal of a request that nobody could approve: it names the roles nobody but the user holds
 * or, when each is held but not by enough different people, every role the tier needs.
 */
function noApprover(roles: string[], coverage: ApproverCoverage): CountersignError {
  // Single quotes: an error_description may not hold `"` (RFC 6749 §5.2), and stays under 200 characters.
  const named = (list: string[]) => new Intl.ListFormat('en', { type: 'conjunction' }).format(list.map((role) => `'${role}'`));
  if (coverage.unheld.length > 0) {
    const [what, it] = coverage.unheld.length === 1 ? [`the role ${named(coverage.unheld)}`, 'it'] : [`the roles ${named(coverage.unheld)}`, 'them'];
    return new CountersignError('no_approver', `No one in this tenant but the user holds ${what}, which this request needs (no one reviews their own request). An operator must assign ${it} first.`);
  }
  return new CountersignError('no_approver', `This request needs ${roles.length} different reviewers (${named(roles)}); fewer people hold those roles in this tenant, the user aside. An operator must assign them first.`);
}

/**
 * Refuses a request nobody could approve, before it takes any place in a limit window: a request
 * nobody could approve would wait out its lifetime holding one. Separation of duties: a role only
 * the user holds is a role nobody holds, and one person fills one role.
 *
 * @param roles - the roles the tier asks for, in order.
 * @param escalationRoles - the roles of the tier's escalation chain after its own.
 * @param holders - the holders of each role of `roles` then of `escalationRoles`, in that order.
 * @param sub - the user the request is for.
 * @throws CountersignError `no_approver`, naming the roles nobody can approve as.
 */
export function checkApprovers(roles: string[], escalationRoles: string[], holders: string[][], sub: string): void {
  const coverage = approverCoverage(roles, holders.slice(0, roles.length), sub);
  if (!coverage.fillable) throw noApprover(roles, coverage);
  // Each role of the chain decides alone once it holds the request: it needs a holder too.
  escalationRoles.forEach((role, i) => {
    const alone = approverCoverage([role], [holders[roles.length + i]!], sub);
    if (!alone.fillable) throw noApprover([role], alone);
  });
}
