/** Helpers shared by the policy-by-blast-radius tests (docs/blast-radius.md): the problems a policy document has, the tier a request gets. */
import type { AuthorizationDetails } from '@countersign/shared';
import { decideTier, parsePolicy, type Policy } from '../../../server/src/policy/index.ts';

/** The problems `parsePolicy` names for a document, one per line, or [] when it is valid. */
export function problemsOf(document: unknown): string[] {
  try {
    parsePolicy(document, 'p.json');
    return [];
  } catch (error) {
    return (error as Error).message
      .split('\n')
      .slice(1)
      .map((line) => line.trim());
  }
}

/** The tier name and basis decided for `details`. */
export const rate = (policy: Policy, details: AuthorizationDetails) => {
  const decided = decideTier(policy, details);
  return [decided.tier.name, decided.basis];
};

export type Client = { client_id: string; client_secret: string };
