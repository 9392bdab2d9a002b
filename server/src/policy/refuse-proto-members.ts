import type { z } from 'zod';

/** Deeper than any member of a policy nests (`limits.velocity.per_user.max_amount_minor.EUR` is 5). */
const POLICY_DEPTH = 8;

/**
 * Refuses every own member named `__proto__` (JSON.parse makes one of `"__proto__": …`): zod builds
 * a record (`types`, `amount_tiers`, `max_amount_minor`) as a plain object and skips that key
 * without a word, so the policy in force would not be the one written, and nothing would say so.
 * Looks no deeper than {@link POLICY_DEPTH}: the schema refuses deeper documents anyway.
 */
export function refuseProtoMembers(document: unknown, context: z.RefinementCtx): unknown {
  const visit = (value: unknown, path: (string | number)[]) => {
    if (value === null || typeof value !== 'object' || path.length > POLICY_DEPTH) return;
    if (!Array.isArray(value) && Object.hasOwn(value, '__proto__')) context.addIssue({ code: 'custom', path: [...path, '__proto__'], message: 'may not be named __proto__' });
    for (const [name, member] of Object.entries(value)) visit(member, [...path, Array.isArray(value) ? Number(name) : name]);
  };
  visit(document, []);
  return document;
}
