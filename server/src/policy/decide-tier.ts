import { mandateExposure, type AuthorizationDetail, type AuthorizationDetails, type ToolCallDetails } from '@countersign/shared';
import { blastRadiusAsks, reversibilityOf, type BlastRadiusAsk } from './blast-radius-tiers.ts';
import type { Policy, Tier } from './policy-schema.ts';

/**
 * What one action moves, per ISO 4217 currency, in minor units; empty for actions that move no
 * money. With `exposure`, a mandate counts as the most it can ever move (`mandateExposure`), which
 * is what the policy weighs; without, as nothing, since approving it moves no money by itself (each
 * spend is counted when it is redeemed).
 */
function amountOf(detail: AuthorizationDetail, exposure: boolean): Record<string, number> {
  switch (detail.type) {
    case 'payment':
      return { [detail.currency]: detail.amount_minor };
    case 'mandate':
      return exposure ? mandateExposure(detail) : {};
    case 'deletion':
    case 'message':
    case 'access_change':
    case 'record_change':
    case 'tool_call':
      // A record change or a tool call may hold numbers, but none of them is money the policy can weigh.
      return {};
  }
}

/**
 * The money a request moves: per currency, the sum over its actions, in minor units. Amounts of
 * different currencies are never added together. With `exposure`, a mandate counts as the most it
 * can move over its life (for rating); without, as nothing (for the velocity windows).
 */
export function requestAmounts(details: AuthorizationDetails, exposure = false): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const detail of details) {
    for (const [currency, amount] of Object.entries(amountOf(detail, exposure))) totals[currency] = Math.min(Number.MAX_SAFE_INTEGER, (totals[currency] ?? 0) + amount);
  }
  return totals;
}

type Hint = 'readOnlyHint' | 'destructiveHint' | 'idempotentHint' | 'openWorldHint';

/**
 * A tool call's hint: as its annotations state it, else MCP's default for it: not read-only, not
 * idempotent, open world, and destructive unless it says it is read-only (MCP: `destructiveHint`
 * defaults to true, meaningful when `readOnlyHint` is false). A stated hint is taken as stated,
 * also a read-only tool's `destructiveHint: true`: a rule can only raise a tier, so believing the
 * more alarming word is the careful reading.
 * @see MCP 2025-11-25 schema `ToolAnnotations`
 */
function hintOf(call: ToolCallDetails, hint: Hint): boolean {
  const stated = call.annotations?.[hint];
  if (stated !== undefined) return stated;
  if (hint === 'destructiveHint') return call.annotations?.readOnlyHint !== true;
  return hint === 'openWorldHint';
}

/** The tiers the `tool_tiers` rules that match `call` ask for (see `policy-schema.ts`). */
function toolTiers(rules: Policy['types'][string]['tool_tiers'], call: ToolCallDetails): string[] {
  return rules
    .filter((rule) => (rule.server === undefined || rule.server === call.server) && (rule.tool === undefined || rule.tool === call.tool))
    .filter((rule) => Object.entries(rule.annotations ?? {}).every(([hint, value]) => value === undefined || hintOf(call, hint as Hint) === value))
    .map((rule) => rule.tier);
}

/** Why a request got its tier: the rule that asked for the strictest tier. */
export interface TierDecision {
  tier: Tier;
  /**
   * `amount`, `unlisted_currency`, `reversibility`, `blast_radius`, `tool` (a `tool_tiers` rule), a
   * blast-radius rule (`record_count`, `recipients`, `role`, `field`, `changed_fields`),
   * `unrated_type` (a stored tenant policy older than the type: its strictest tier), or `lowest`
   * when nothing asked for more.
   */
  basis: 'amount' | 'unlisted_currency' | 'reversibility' | 'blast_radius' | 'tool' | BlastRadiusAsk['basis'] | 'unrated_type' | 'lowest';
}

/**
 * Decides a request's tier, once, at request time: the strictest of what each action's type asks
 * for by reversibility and blast radius, and what each currency's total asks for by the type's
 * ascending thresholds (a currency without thresholds gets `unlisted_currency_tier`). Splitting
 * an amount over several actions of one request does not lower it: the thresholds apply to the
 * request's total per type and currency. A tool call also gets what each matching `tool_tiers`
 * rule asks for (by server, tool and annotation); a rule only ever raises the tier, so an upstream
 * whose annotations understate a tool cannot bring it below the type's floors.
 *
 * By blast radius (`blast-radius-tiers.ts`): the request's total records deleted and recipients
 * messaged against the type's thresholds, the roles its access changes grant, the fields its
 * record changes name and how many. Deletions that all say `reversible: true` are rated by the
 * type's `reversible_as` floor and their record count `reversible_tier_drop` tiers milder: the
 * lowering applies to their own asks only, never below what any other rule asks for.
 *
 * A pure function of the policy and the details: nothing is read or written.
 *
 * @see docs/guarantees.md "Policy tiers"; docs/blast-radius.md
 */
export function decideTier(policy: Policy, details: AuthorizationDetails): TierDecision {
  const tierNames = policy.tiers.map((tier) => tier.name);
  const rank = (name: string) => tierNames.indexOf(name);
  let best = { rank: 0, basis: 'lowest' as TierDecision['basis'] };
  const consider = (name: string, basis: TierDecision['basis']) => {
    if (rank(name) > best.rank) best = { rank: rank(name), basis };
  };
  const byType = new Map<string, AuthorizationDetail[]>();
  for (const detail of details) byType.set(detail.type, [...(byType.get(detail.type) ?? []), detail]);
  for (const [type, actions] of byType) {
    const rated = policy.types[type];
    // Only a tenant's policy stored before the type was registered lacks it (`storedPolicySchema`):
    // an action nobody rated is not small.
    if (!rated) {
      consider(tierNames.at(-1)!, 'unrated_type');
      continue;
    }
    consider(policy.floors.reversibility[reversibilityOf(rated, actions)], 'reversibility');
    consider(policy.floors.blast_radius[rated.blast_radius], 'blast_radius');
    for (const ask of blastRadiusAsks(rated, actions, tierNames)) consider(ask.tier, ask.basis);
    for (const action of actions) if (action.type === 'tool_call') for (const name of toolTiers(rated.tool_tiers, action)) consider(name, 'tool');
    for (const [currency, total] of Object.entries(requestAmounts(actions as AuthorizationDetails, true))) {
      const steps = rated.amount_tiers[currency];
      if (!steps) {
        consider(rated.unlisted_currency_tier, 'unlisted_currency');
        continue;
      }
      const reached = steps.filter((step) => total >= step.from_minor).at(-1);
      if (reached) consider(reached.tier, 'amount');
    }
  }
  return { tier: policy.tiers[best.rank]!, basis: best.basis };
}
