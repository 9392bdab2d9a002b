import { z } from 'zod';

/**
 * The blast-radius rules of a type's policy (docs/blast-radius.md): what an action
 * reaches, counted or named, raises its tier; a deletion that can be undone lowers its own. Kept
 * apart from `policy-schema.ts`, which spreads {@link blastRadiusRules} into each type's policy,
 * {@link velocityReachLimits} into each velocity window, and calls {@link checkBlastRadius}.
 *
 * Every rule belongs to one type (a `record_tiers` on `message` is refused, not ignored), names
 * tiers the policy has, and states count thresholds in ascending order. See docs/blast-radius.md.
 */

/** A record or recipient count threshold: a whole number from 1 to 10¹², inclusive. */
const fromCount = z.number().int().min(1).max(1_000_000_000_000);

/**
 * A role or field name as a rule names it: letters, digits and `._:-`, where `*` stands for any run
 * of characters (`*admin*`, `payout_*`). Matched without regard to case: the name comes with the
 * agent's request, and `Payout_EUR_minor` must not slip past a rule written `payout_*`.
 */
const namePattern = z
  .string()
  .regex(/^[A-Za-z0-9._:*-]+$/, 'may hold only letters, digits, ._:- and * (any run of characters)')
  .min(1)
  .max(64);

/** What `policy-schema.ts` passes in: its own tier-name and reversibility schemas (importing them here would be a cycle). */
export interface BlastRadiusSchemaParts<Tier extends z.ZodType<string>, Reversibility extends z.ZodType<string>> {
  tierName: Tier;
  reversibility: Reversibility;
}

/**
 * The members each type's policy may hold besides its floors, amounts and tool rules, each for one
 * type only (see {@link RULE_TYPES}):
 * - `record_tiers` (deletion): `[{from_count, tier}]` on the request's total `count` of deletions;
 * - `reversible_as` (deletion): the reversibility a deletion with `reversible: true` is rated by,
 *   instead of the type's (e.g. `reversible`, whose floor is milder than `irreversible`'s);
 * - `reversible_tier_drop` (deletion, 0–9): how many tiers milder `record_tiers` rates a request
 *   whose deletions are all reversible (never below the mildest tier, nor below any other rule);
 * - `recipient_tiers` (message): `[{from_count, tier}]` on the request's total `recipients.count`;
 * - `role_tiers` (access_change): `[{role, tier}]` on the role granted (`to_role`, of a grant or a
 *   change); a revocation (`to_role: null`) is rated by `revoke_tier` when set, else by the floors;
 * - `revoke_tier` (access_change): the tier of a revocation;
 * - `field_tiers` (record_change): `[{field, tier}]`, a tier for each changed field it names;
 * - `changed_fields_tiers` (record_change): `[{from_count, tier}]` on the number of fields the
 *   request changes in all.
 */
export function blastRadiusRules<Tier extends z.ZodType<string>, Reversibility extends z.ZodType<string>>({ tierName, reversibility }: BlastRadiusSchemaParts<Tier, Reversibility>) {
  const countSteps = z.array(z.strictObject({ from_count: fromCount, tier: tierName })).max(10);
  return {
    record_tiers: countSteps.default([]),
    reversible_as: reversibility.optional(),
    reversible_tier_drop: z.number().int().min(0).max(9).optional(),
    recipient_tiers: countSteps.default([]),
    role_tiers: z
      .array(z.strictObject({ role: namePattern, tier: tierName }))
      .max(100)
      .default([]),
    revoke_tier: tierName.optional(),
    field_tiers: z
      .array(z.strictObject({ field: namePattern, tier: tierName }))
      .max(100)
      .default([]),
    changed_fields_tiers: countSteps.default([]),
  };
}

/** The one type each blast-radius member of a type's policy belongs to. */
export const RULE_TYPES = {
  record_tiers: 'deletion',
  reversible_as: 'deletion',
  reversible_tier_drop: 'deletion',
  recipient_tiers: 'message',
  role_tiers: 'access_change',
  revoke_tier: 'access_change',
  field_tiers: 'record_change',
  changed_fields_tiers: 'record_change',
} as const;

/** The blast-radius members of one type's policy, as parsed. */
export interface BlastRadiusRules {
  record_tiers: { from_count: number; tier: string }[];
  reversible_as?: string | undefined;
  reversible_tier_drop?: number | undefined;
  recipient_tiers: { from_count: number; tier: string }[];
  role_tiers: { role: string; tier: string }[];
  revoke_tier?: string | undefined;
  field_tiers: { field: string; tier: string }[];
  changed_fields_tiers: { from_count: number; tier: string }[];
}

/**
 * The velocity window's limits on reach (docs/blast-radius.md "Velocity: records and recipients"):
 * many small requests add up as one large one would. Unset: not limited.
 * - `max_records`: records deleted in the window (the sum of deletions' `count`);
 * - `max_recipients`: people messaged in the window (the sum of messages' `recipients.count`).
 */
export const velocityReachLimits = {
  max_records: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
  max_recipients: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER).optional(),
};

type Problem = (path: (string | number)[], message: string) => void;

/**
 * Checks what zod cannot see of one type's blast-radius rules: each member on its own type only,
 * every tier named exists (`known`), count thresholds strictly ascending, each role or field
 * pattern named once (without regard to case), and `reversible_as` no less reversible than the
 * type's own `reversibility` (reversibility lowers a tier; it never raises one).
 *
 * @param order - the reversibility values from the most to the least reversible.
 */
export function checkBlastRadius(type: string, rated: BlastRadiusRules & { reversibility: string }, order: readonly string[], known: (path: (string | number)[], name: string) => void, problem: Problem): void {
  const at = (...path: (string | number)[]) => ['types', type, ...path];
  for (const [member, owner] of Object.entries(RULE_TYPES) as [keyof BlastRadiusRules, string][]) {
    const value = rated[member];
    const given = Array.isArray(value) ? value.length > 0 : value !== undefined;
    if (given && owner !== type) problem(at(member), `only ${owner} is rated by ${member}`);
  }
  for (const member of ['record_tiers', 'recipient_tiers', 'changed_fields_tiers'] as const) {
    rated[member].forEach((step, i, steps) => {
      known(at(member, i, 'tier'), step.tier);
      if (i > 0 && step.from_count <= steps[i - 1]!.from_count) problem(at(member, i), 'thresholds must ascend');
    });
  }
  const named = (member: 'role_tiers' | 'field_tiers', rules: { name: string; tier: string }[]) => {
    const seen = new Set<string>();
    rules.forEach((rule, i) => {
      known(at(member, i, 'tier'), rule.tier);
      if (seen.has(rule.name.toLowerCase())) problem(at(member, i), `${rule.name} is named twice`);
      seen.add(rule.name.toLowerCase());
    });
  };
  named(
    'role_tiers',
    rated.role_tiers.map((rule) => ({ name: rule.role, tier: rule.tier })),
  );
  named(
    'field_tiers',
    rated.field_tiers.map((rule) => ({ name: rule.field, tier: rule.tier })),
  );
  if (rated.revoke_tier !== undefined) known(at('revoke_tier'), rated.revoke_tier);
  if (rated.reversible_as !== undefined && order.indexOf(rated.reversible_as) > order.indexOf(rated.reversibility)) {
    problem(at('reversible_as'), `must be at least as reversible as the type's reversibility (${rated.reversibility}): reversibility lowers a tier, never raises it`);
  }
}
