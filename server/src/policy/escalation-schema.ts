import { roleName } from '@countersign/shared';
import { z } from 'zod';

/**
 * One step of a tier's escalation chain: `after_seconds` after the request was made (seconds from
 * its creation, not from the step before), the request is handed to any one holder of `to.role`.
 */
const escalationStep = z.strictObject({
  after_seconds: z.number().int().min(1).max(86_400),
  to: z.strictObject({ role: roleName }),
});

/**
 * A tier's escalation chain: who is asked next when no one decides in time. The tier's one approver
 * has until the first step's `after_seconds` to act; then the request is handed to the first step's
 * role, which has until the next step's, and so on; the last role has until the request expires,
 * and when it does the request expires with the reason `escalation_exhausted`. The chain is copied
 * onto the request when it is made (`escalation` on the record), so a later policy change does not
 * alter a request already waiting. See docs/escalation.md.
 */
export const escalationChain = z.array(escalationStep).min(1).max(5);

/** What {@link checkEscalation} reads of a tier (structurally, so this file does not import the tier's schema). */
export interface EscalatingTier {
  approvers: readonly ('customer' | { role: string })[];
  request_expiry_seconds?: number | undefined;
  escalation?: z.infer<typeof escalationChain> | undefined;
}

/**
 * The checks of a tier's chain that need the rest of the tier, each reported through `problem` with
 * its path inside the tier:
 * - one approver only: the chain hands that one approval on; with several, a step could turn two
 *   approvals into one (a weaker gate), so the policy must say so with another tier instead;
 * - `request_expiry_seconds` set, and every step before it: a window past the request's life would
 *   never open, and the server's default expiry may change under the policy;
 * - windows strictly ascending, and each role different from the approver's and the other steps':
 *   a step back to a role that already let its window pass asks nobody new.
 */
export function checkEscalation(tier: EscalatingTier, problem: (path: (string | number)[], message: string) => void): void {
  const chain = tier.escalation;
  if (!chain) return;
  if (tier.approvers.length !== 1) problem(['escalation'], 'a tier with escalation names exactly one approver: the chain hands that approval on');
  if (tier.request_expiry_seconds === undefined) problem(['request_expiry_seconds'], 'a tier with escalation must set request_expiry_seconds: the last window ends there');
  const seen = new Set(tier.approvers.map((approver) => (approver === 'customer' ? 'customer' : approver.role)));
  chain.forEach((step, i) => {
    if (i > 0 && step.after_seconds <= chain[i - 1]!.after_seconds) problem(['escalation', i, 'after_seconds'], 'windows must ascend: each step is seconds after the request was made');
    if (tier.request_expiry_seconds !== undefined && step.after_seconds >= tier.request_expiry_seconds) {
      problem(['escalation', i, 'after_seconds'], `must be less than request_expiry_seconds (${tier.request_expiry_seconds}): the request would be over before this step`);
    }
    if (seen.has(step.to.role)) problem(['escalation', i, 'to', 'role'], 'each step hands the request to a role not asked before');
    seen.add(step.to.role);
  });
}

/**
 * The escalation steps no request could live to see on a server whose requests live at most
 * `maxSeconds` (`REQUEST_EXPIRY_MAX`, which caps a tier's `request_expiry_seconds` too): a step at or
 * after it never happens, the request expires first as any request does, and the policy's reader
 * believes a chain that asks nobody. The schema cannot see the server's configuration, so this is
 * checked where a policy meets it: at start (`POLICY_FILE`) and at `PUT` of a tenant's policy.
 *
 * @returns each problem with its path in the policy (`['tiers', i, 'escalation', j, 'after_seconds']`); empty when every step can happen.
 */
export function unreachableEscalation(tiers: readonly EscalatingTier[], maxSeconds: number): { path: (string | number)[]; message: string }[] {
  return tiers.flatMap((tier, i) =>
    (tier.escalation ?? []).flatMap((step, j) => (step.after_seconds >= maxSeconds ? [{ path: ['tiers', i, 'escalation', j, 'after_seconds'], message: `must be less than ${maxSeconds} s, the longest a request lives on this server (REQUEST_EXPIRY_MAX): no request would last until this step` }] : [])),
  );
}
