import type { AccessChangeDetails, AuthorizationDetail, AuthorizationDetails, DeletionDetails, MessageDetails, RecordChangeDetails } from '@countersign/shared';
import type { BlastRadiusRules } from './blast-radius-schema.ts';

/** What a blast-radius rule asks for, and which rule it is (a `TierDecision` basis). */
export interface BlastRadiusAsk {
  tier: string;
  basis: 'record_count' | 'recipients' | 'role' | 'field' | 'changed_fields';
}

/** What a request reaches besides money: records deleted and people messaged, each summed over its actions. */
export interface RequestReach {
  /** The sum of the deletions' `count`. */
  records: number;
  /** The sum of the messages' `recipients.count`. */
  recipients: number;
}

/**
 * The records and recipients a request reaches, summed over its actions, so that splitting one
 * mass deletion or mailing over several actions of a request (or, in the velocity windows, over
 * several requests) counts the same as asking for it at once.
 */
export function requestReach(details: AuthorizationDetails): RequestReach {
  let records = 0;
  let recipients = 0;
  for (const detail of details) {
    if (detail.type === 'deletion') records += detail.count;
    else if (detail.type === 'message') recipients += detail.recipients.count;
  }
  return { records, recipients };
}

/**
 * Whether `name` matches a rule's pattern: `*` is any run of characters, every other character is
 * itself, case does not count (see `blast-radius-schema.ts`; both are ASCII there). A wildcard match
 * that only ever goes back to the last `*`, so it takes at most pattern × name steps: the policy
 * writes the pattern but the agent writes the name, and a backtracking regular expression built
 * from `*a*a*a*a*a*a*b` took seconds on a 64-character role, holding the whole server meanwhile.
 */
function matches(pattern: string, name: string): boolean {
  const p = pattern.toLowerCase();
  const n = name.toLowerCase();
  let i = 0;
  let j = 0;
  let star = -1;
  let resume = 0;
  while (j < n.length) {
    if (i < p.length && p[i] === '*') {
      star = i++;
      resume = j;
    } else if (i < p.length && p[i] === n[j]) {
      i++;
      j++;
    } else if (star >= 0) {
      // The last `*` takes one character more; everything before it stays matched.
      i = star + 1;
      j = ++resume;
    } else return false;
  }
  while (i < p.length && p[i] === '*') i++;
  return i === p.length;
}

/** The tier of the last threshold `total` reaches, or none below the first. */
function stepFor(steps: { from_count: number; tier: string }[], total: number): string | undefined {
  return steps.filter((step) => total >= step.from_count).at(-1)?.tier;
}

/** True when the type's `reversible_as` and `reversible_tier_drop` apply: every deletion of the request says it can be undone. */
function allReversible(actions: AuthorizationDetail[]): boolean {
  return actions.every((action) => action.type === 'deletion' && action.reversible);
}

/**
 * The reversibility a type's actions are rated by: the type's own, or for deletions that all say
 * `reversible: true`, the type's `reversible_as` when set. One irreversible deletion in the request
 * rates it as irreversible: the person approves all of it at once.
 */
export function reversibilityOf<R extends string>(rated: { reversibility: R; reversible_as?: R | undefined }, actions: AuthorizationDetail[]): R {
  return rated.reversible_as !== undefined && allReversible(actions) ? rated.reversible_as : rated.reversibility;
}

/**
 * What one type's blast-radius rules ask for, given all of the request's actions of that type:
 * - deletions: `record_tiers` on the total `count`, `reversible_tier_drop` tiers milder when every
 *   deletion is reversible (never below the mildest of `tierNames`);
 * - messages: `recipient_tiers` on the total `recipients.count`;
 * - access changes: each `role_tiers` rule matching a `to_role`; `revoke_tier` for a revocation;
 * - record changes: each `field_tiers` rule matching a changed field; `changed_fields_tiers` on the
 *   number of changed fields in all.
 * Each ask only raises: the request's tier is the strictest of these and every other rule's.
 *
 * @param tierNames - the policy's tiers, mildest first.
 */
export function blastRadiusAsks(rated: BlastRadiusRules, actions: AuthorizationDetail[], tierNames: string[]): BlastRadiusAsk[] {
  const asks: BlastRadiusAsk[] = [];
  const ask = (tier: string | undefined, basis: BlastRadiusAsk['basis']) => {
    if (tier !== undefined) asks.push({ tier, basis });
  };
  const of = <T extends AuthorizationDetail['type']>(type: T) => actions.filter((action): action is Extract<AuthorizationDetail, { type: T }> => action.type === type);
  const deletions: DeletionDetails[] = of('deletion');
  if (deletions.length > 0) {
    const reached = stepFor(
      rated.record_tiers,
      deletions.reduce((sum, action) => sum + action.count, 0),
    );
    const drop = allReversible(deletions) ? (rated.reversible_tier_drop ?? 0) : 0;
    ask(reached === undefined ? undefined : tierNames[Math.max(0, tierNames.indexOf(reached) - drop)], 'record_count');
  }
  const messages: MessageDetails[] = of('message');
  if (messages.length > 0)
    ask(
      stepFor(
        rated.recipient_tiers,
        messages.reduce((sum, action) => sum + action.recipients.count, 0),
      ),
      'recipients',
    );
  const accessChanges: AccessChangeDetails[] = of('access_change');
  for (const change of accessChanges) {
    if (change.to_role === null) ask(rated.revoke_tier, 'role');
    else for (const rule of rated.role_tiers) if (matches(rule.role, change.to_role)) ask(rule.tier, 'role');
  }
  const recordChanges: RecordChangeDetails[] = of('record_change');
  if (recordChanges.length > 0) {
    const fields = recordChanges.flatMap((action) => action.changes.map((change) => change.field));
    for (const rule of rated.field_tiers) if (fields.some((field) => matches(rule.field, field))) ask(rule.tier, 'field');
    ask(stepFor(rated.changed_fields_tiers, fields.length), 'changed_fields');
  }
  return asks;
}
