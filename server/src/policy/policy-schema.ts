import { ACTION_TYPE_NAMES, identifier, isCurrencyCode, roleName, toolName } from '@countersign/shared';
import { z } from 'zod';
import { blastRadiusRules, checkBlastRadius, velocityReachLimits } from './blast-radius-schema.ts';
import { checkEscalation, escalationChain } from './escalation-schema.ts';
import { mandatePolicyMembers } from './mandate-schema.ts';

/** How hard an action is to undo: money that can be recalled at a cost is `costly`; deleted data is `irreversible`. */
export const REVERSIBILITY = ['reversible', 'costly', 'irreversible'] as const;
/** How many people or records one action reaches. */
export const BLAST_RADIUS = ['one', 'many', 'all'] as const;

const seconds = z.number().int().min(1).max(86_400);
const count = (max: number) => z.number().int().min(1).max(max);
const minorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
const tierName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be lower-case letters, digits, _ and -');
const currency = z.string().refine(isCurrencyCode, 'must be an ISO 4217 currency code');

/** Who must approve: the person the request is for (`customer`), or any one user holding a role. */
const approver = z.union([z.literal('customer'), z.strictObject({ role: roleName })]);

/** One tier: who must approve, for how long the request and the approval token live, number matching. */
const tier = z.strictObject({
  name: tierName,
  /** For the product team's readers; never shown to the agent. */
  description: z.string().max(500).optional(),
  approvers: z.array(approver).min(1).max(5),
  /** Request lifetime (`expires_in`), seconds: the default and the cap of `requested_expiry`. Unset: `REQUEST_EXPIRY_DEFAULT` / `REQUEST_EXPIRY_MAX`. */
  request_expiry_seconds: seconds.optional(),
  /** Approval token lifetime from the final approval, seconds. Unset: `APPROVAL_TOKEN_TTL`. */
  token_lifetime_seconds: seconds.optional(),
  /** The person picks, out of three, the two-digit code the agent shows. */
  number_matching: z.boolean(),
  /** Who is asked next when the approver lets its window pass (see `escalation-schema.ts`). */
  escalation: escalationChain.optional(),
});

/** From `from_minor` (minor units of that currency, inclusive) up, at least `tier`. */
const amountStep = z.strictObject({ from_minor: minorUnits.min(1), tier: tierName });

/**
 * One rule of `tool_tiers`: a `tool_call` that matches every condition the rule states (the
 * upstream `server`'s name, the `tool`'s exact name, each listed annotation hint's value) gets at
 * least `tier`. A hint the call's annotations leave out counts as MCP's default for it (read-only
 * false; destructive true unless read-only; idempotent false unless read-only; open world true), so
 * a tool that says nothing about itself is taken to be destructive, as MCP says to.
 * @see MCP 2025-11-25 schema `ToolAnnotations`
 */
const toolRule = z
  .strictObject({
    server: identifier(64).optional(),
    tool: toolName.optional(),
    annotations: z
      .strictObject({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional(), idempotentHint: z.boolean().optional(), openWorldHint: z.boolean().optional() })
      .optional(),
    tier: tierName,
  })
  .refine((rule) => rule.server !== undefined || rule.tool !== undefined || Object.keys(rule.annotations ?? {}).length > 0, {
    message: 'a rule must name a server, a tool or an annotation: a rule for every call is the type\'s floors',
  });

/** How one `authorization_details` type is rated. */
const typePolicy = z.strictObject({
  reversibility: z.enum(REVERSIBILITY),
  blast_radius: z.enum(BLAST_RADIUS),
  /** Per currency, ascending thresholds on the request's total in that currency. Below the first: the lowest tier. */
  amount_tiers: z.record(currency, z.array(amountStep).max(10)).default({}),
  /** The tier of an amount in a currency `amount_tiers` does not list: an amount nobody rated is not small. */
  unlisted_currency_tier: tierName,
  /** `tool_call` only: tiers by server, tool name and annotation; every matching rule applies, the strictest wins. */
  tool_tiers: z.array(toolRule).max(100).default([]),
  /** Tiers by records, recipients, roles and fields, and reversible deletions (blast-radius-schema.ts). */
  ...blastRadiusRules({ tierName, reversibility: z.enum(REVERSIBILITY) }),
  /** `mandate` only: the longest a mandate may run (mandate-schema.ts). */
  ...mandatePolicyMembers,
});

/**
 * One client's share of a user's pending places when the policy does not set
 * `max_pending_per_client_user`: three tenths of `max_pending_per_user`, rounded up (3 of 10, 1 of 2),
 * so no one client fills a user's places while at least three could share them.
 */
export function defaultClientShare(maxPendingPerUser: number): number {
  return Math.ceil((maxPendingPerUser * 3) / 10);
}

/** A sliding window: at most `max_count` requests and, per currency listed, `max_amount_minor` in total. */
const velocityWindow = z.strictObject({
  window_seconds: seconds,
  max_count: count(1_000_000),
  /** Currencies not listed are limited by the count only: list every currency the deployment takes. */
  max_amount_minor: z.record(currency, minorUnits).default({}),
  /** `max_records`, `max_recipients`: records deleted and people messaged in the window (blast-radius-schema.ts). */
  ...velocityReachLimits,
});

/** Deeper than any member of a policy nests (`limits.velocity.per_user.max_amount_minor.EUR` is 5). */
const POLICY_DEPTH = 8;

/**
 * Refuses every own member named `__proto__` (JSON.parse makes one of `"__proto__": …`): zod builds
 * a record (`types`, `amount_tiers`, `max_amount_minor`) as a plain object and skips that key
 * without a word, so the policy in force would not be the one written, and nothing would say so.
 * Looks no deeper than {@link POLICY_DEPTH}: the schema refuses deeper documents anyway.
 */
function refuseProtoMembers(document: unknown, context: z.RefinementCtx): unknown {
  const visit = (value: unknown, path: (string | number)[]) => {
    if (value === null || typeof value !== 'object' || path.length > POLICY_DEPTH) return;
    if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) context.addIssue({ code: 'custom', path: [...path, '__proto__'], message: 'may not be named __proto__' });
    for (const [name, member] of Object.entries(value)) visit(member, [...path, Array.isArray(value) ? Number(name) : name]);
  };
  visit(document, []);
  return document;
}

/** The approval policy's schema; see {@link policySchema} and {@link storedPolicySchema}. */
function makePolicySchema(everyTypeRated: boolean) {
  return z.preprocess(refuseProtoMembers, makeStrictPolicySchema(everyTypeRated));
}

/** The policy's members and the checks across them, once no member is named `__proto__`. */
function makeStrictPolicySchema(everyTypeRated: boolean) {
  return z
    .strictObject({
      version: z.literal(1),
      tiers: z.array(tier).min(1).max(10),
      /** The mildest tier each reversibility and each blast radius allows. */
      floors: z.strictObject({
        reversibility: z.record(z.enum(REVERSIBILITY), tierName),
        blast_radius: z.record(z.enum(BLAST_RADIUS), tierName),
      }),
      /** One entry per registered `authorization_details` type, no more, no fewer. */
      types: z.record(z.string(), typePolicy),
      limits: z.strictObject({
        /** Pending requests one user may have at once; the next one is refused (`too_many_pending`). */
        max_pending_per_user: count(1000),
        /**
         * Pending requests one client may have for one user at once, at most `max_pending_per_user`:
         * its share, so one client cannot take all of a user's places and lock the others out.
         * Unset: {@link defaultClientShare} of `max_pending_per_user` (3 of 10).
         */
        max_pending_per_client_user: count(1000).optional(),
        /** Pushes one user may get in a window; a push over it is skipped and audited, the request stands. */
        pushes_per_user: z.strictObject({ window_seconds: seconds, max_count: count(10_000) }),
        velocity: z.strictObject({ per_user: velocityWindow, per_client: velocityWindow }),
        /**
         * Not a setting any more: the first wrong number-matching pick denies the request, since with
         * three candidates any larger number lets a person who cannot see the agent's screen tap each
         * code in turn and approve. Only `1` (what always happens) is accepted, so a policy file that
         * already asked for it still loads; any other value stops the server, so nobody believes
         * they run a policy that allows more picks.
         * @deprecated leave it out.
         */
        max_wrong_code_picks: z
          .literal(1, { error: 'must be 1 or left out: the first wrong pick denies the request, so trying each code in turn cannot approve it' })
          .optional(),
      }),
    })
    .superRefine((policy, context) => {
      const problem = (path: (string | number)[], message: string) => context.addIssue({ code: 'custom', path, message });
      const names = policy.tiers.map((t) => t.name);
      if (new Set(names).size !== names.length) problem(['tiers'], 'tier names must be unique');
      const { max_pending_per_user, max_pending_per_client_user } = policy.limits;
      if (max_pending_per_client_user !== undefined && max_pending_per_client_user > max_pending_per_user) {
        problem(['limits', 'max_pending_per_client_user'], `must be at most max_pending_per_user (${max_pending_per_user}): it is one client's share of a user's pending places`);
      }
      const known = (path: (string | number)[], name: string) => {
        if (!names.includes(name)) problem(path, `no tier named ${name}`);
      };
      policy.tiers.forEach((t, i) => {
        const parties = t.approvers.map((a) => (a === 'customer' ? a : a.role));
        if (new Set(parties).size !== parties.length) problem(['tiers', i, 'approvers'], 'an approver may be named once');
        checkEscalation(t, (path, message) => problem(['tiers', i, ...path], message));
      });
      for (const [kind, floors] of Object.entries(policy.floors)) for (const [value, name] of Object.entries(floors)) known(['floors', kind, value], name);
      if (everyTypeRated) for (const type of ACTION_TYPE_NAMES) if (!policy.types[type]) problem(['types', type], 'every registered authorization_details type needs a policy');
      for (const [type, rated] of Object.entries(policy.types)) {
        if (!(ACTION_TYPE_NAMES as string[]).includes(type)) problem(['types', type], 'not a registered authorization_details type');
        known(['types', type, 'unlisted_currency_tier'], rated.unlisted_currency_tier);
        if (type !== 'tool_call' && rated.tool_tiers.length > 0) problem(['types', type, 'tool_tiers'], 'only tool_call is rated by tool');
        rated.tool_tiers.forEach((rule, i) => known(['types', type, 'tool_tiers', i, 'tier'], rule.tier));
        checkBlastRadius(type, rated, REVERSIBILITY, known, problem);
        for (const [code, steps] of Object.entries(rated.amount_tiers)) {
          steps.forEach((step, i) => {
            known(['types', type, 'amount_tiers', code, i, 'tier'], step.tier);
            if (i > 0 && step.from_minor <= steps[i - 1]!.from_minor) problem(['types', type, 'amount_tiers', code, i], 'thresholds must ascend');
          });
        }
      }
    })
    // Filled in after the checks, so the rest of the server reads one number.
    .transform((policy) => ({ ...policy, limits: { ...policy.limits, max_pending_per_client_user: policy.limits.max_pending_per_client_user ?? defaultClientShare(policy.limits.max_pending_per_user) } }));
}

/**
 * The approval policy: set by the product team in a file (`POLICY_FILE`) or per tenant through the
 * admin API, validated before it is used, never settable by an agent. Tiers are listed from the
 * mildest to the strictest; an action's tier is the strictest of what its amount (per currency),
 * its type's reversibility and its blast radius ask for. Every registered type must be rated.
 */
export const policySchema = makePolicySchema(true);

/**
 * A tenant's policy as stored, read back after the server may have learned types the policy was
 * written before: the same checks as {@link policySchema}, except that a registered type may be
 * missing. `decideTier` rates such a type at the policy's strictest tier, so an upgrade neither
 * stops the tenant's requests nor lets a new kind of action through on the mildest one.
 */
export const storedPolicySchema = makePolicySchema(false);

/** A validated approval policy. */
export type Policy = z.infer<typeof policySchema>;
/** One tier of a {@link Policy}. */
export type Tier = Policy['tiers'][number];
