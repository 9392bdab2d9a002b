import { identifier, isCurrencyCode, roleName, toolName } from '@countersign/shared';
import { z } from 'zod';
import { blastRadiusRules, velocityReachLimits } from './blast-radius-schema.ts';
import { escalationChain } from './escalation-schema.ts';
import { mandatePolicyMembers } from './mandate-schema.ts';

// The members a policy is built of: its tiers, how each action type is rated, the velocity
// windows. `policy-schema.ts` assembles them and checks them against one another.

/** How hard an action is to undo: money that can be recalled at a cost is `costly`; deleted data is `irreversible`. */
export const REVERSIBILITY = ['reversible', 'costly', 'irreversible'] as const;
/** How many people or records one action reaches. */
export const BLAST_RADIUS = ['one', 'many', 'all'] as const;

/** A duration in whole seconds, from one second to one day. */
export const seconds = z.number().int().min(1).max(86_400);
/** A whole count from 1 to `max`. */
export const count = (max: number) => z.number().int().min(1).max(max);
const minorUnits = z.number().int().min(0).max(Number.MAX_SAFE_INTEGER);
/** A tier's name: lower-case letters, digits, `_` and `-`, at most 32 characters. */
export const tierName = z.string().regex(/^[a-z][a-z0-9_-]{0,31}$/, 'must be lower-case letters, digits, _ and -');
const currency = z.string().refine(isCurrencyCode, 'must be an ISO 4217 currency code');

/** Who must approve: the person the request is for (`customer`), or any one user holding a role. */
const approver = z.union([z.literal('customer'), z.strictObject({ role: roleName })]);

/** One tier: who must approve, for how long the request and the approval token live, number matching. */
export const tier = z.strictObject({
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
    annotations: z.strictObject({ readOnlyHint: z.boolean().optional(), destructiveHint: z.boolean().optional(), idempotentHint: z.boolean().optional(), openWorldHint: z.boolean().optional() }).optional(),
    tier: tierName,
  })
  .refine((rule) => rule.server !== undefined || rule.tool !== undefined || Object.keys(rule.annotations ?? {}).length > 0, {
    message: "a rule must name a server, a tool or an annotation: a rule for every call is the type's floors",
  });

/** How one `authorization_details` type is rated. */
export const typePolicy = z.strictObject({
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

/** A sliding window: at most `max_count` requests and, per currency listed, `max_amount_minor` in total. */
export const velocityWindow = z.strictObject({
  window_seconds: seconds,
  max_count: count(1_000_000),
  /** Currencies not listed are limited by the count only: list every currency the deployment takes. */
  max_amount_minor: z.record(currency, minorUnits).default({}),
  /** `max_records`, `max_recipients`: records deleted and people messaged in the window (blast-radius-schema.ts). */
  ...velocityReachLimits,
});
