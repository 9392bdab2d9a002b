import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parsePolicy } from './load-policy.ts';

const SHIPPED = readFileSync(new URL('./default-policy.json', import.meta.url), 'utf8');

/** The problems `parsePolicy` names, one per line, without the heading. */
function problems(document: unknown): string[] {
  try {
    parsePolicy(document);
    return [];
  } catch (error) {
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

/** The shipped policy's JSON text with `member` (raw JSON) put first into the object that `opening` opens. */
function withMember(opening: string, member: string): unknown {
  if (!SHIPPED.includes(opening)) throw new Error(`no ${opening} in the shipped policy`);
  return JSON.parse(SHIPPED.replace(opening, `${opening} ${member},`));
}

describe('the policy document', () => {
  it('refuses a member named __proto__ wherever it is, instead of dropping it without a word', () => {
    // JSON.parse makes `__proto__` an own member; zod builds records as plain objects and skips it,
    // so the policy that loaded was not the one written, and nothing said so.
    expect(problems(withMember('"types": {', '"__proto__": {"reversibility": "irreversible", "blast_radius": "all", "unlisted_currency_tier": "high"}'))).toEqual(['types.__proto__: may not be named __proto__']);
    expect(problems(withMember('"amount_tiers": {', '"__proto__": [{"from_minor": 1, "tier": "high"}]'))).toEqual(['types.payment.amount_tiers.__proto__: may not be named __proto__']);
    expect(problems(withMember('"max_amount_minor": {', '"__proto__": 1'))).toEqual(['limits.velocity.per_user.max_amount_minor.__proto__: may not be named __proto__']);
    expect(problems(JSON.parse(SHIPPED))).toEqual([]);
  });
});
