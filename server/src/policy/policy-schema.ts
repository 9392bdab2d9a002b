import { ACTION_TYPE_NAMES } from '@countersign/shared';
import { z } from 'zod';
import { checkBlastRadius } from './blast-radius-schema.ts';
import { checkEscalation } from './escalation-schema.ts';
import { BLAST_RADIUS, count, REVERSIBILITY, seconds, tier, tierName, typePolicy, velocityWindow } from './policy-members.ts';
import { refuseProtoMembers } from './refuse-proto-members.ts';

export { BLAST_RADIUS, REVERSIBILITY } from './policy-members.ts';

/**
 * One client's share of a user's pending places when the policy does not set
 * `max_pending_per_client_user`: three tenths of `max_pending_per_user`, rounded up (3 of 10, 1 of 2),
 * so no one client fills a user's places while at least three could share them.
 */
export function defaultClientShare(maxPendingPerUser: number): number {
  return Math.ceil((maxPendingPerUser * 3) / 10);
}

/** The approval policy's schema; see {@link policySchema} and {@link storedPolicySchema}. */
function makePolicySchema(everyTypeRated: boolean) {
  return z.preprocess(refuseProtoMembers, makeStrictPolicySchema(everyTypeRated));
}

/** The policy's members and the checks across them, once no member is named `__proto__`. */
function makeStrictPolicySchema(everyTypeRated: boolean) {
  return (
    z
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
          max_wrong_code_picks: z.literal(1, { error: 'must be 1 or left out: the first wrong pick denies the request, so trying each code in turn cannot approve it' }).optional(),
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
          rated.tool_tiers.forEach((rule, i) => {
            known(['types', type, 'tool_tiers', i, 'tier'], rule.tier);
          });
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
      .transform((policy) => ({ ...policy, limits: { ...policy.limits, max_pending_per_client_user: policy.limits.max_pending_per_client_user ?? defaultClientShare(policy.limits.max_pending_per_user) } }))
  );
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
