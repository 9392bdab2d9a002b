import { readFile } from 'node:fs/promises';
import { policySchema, type Policy, type storedPolicySchema } from './policy-schema.ts';

/** The policy shipped with the server, used when `POLICY_FILE` is unset. */
export const DEFAULT_POLICY_FILE = new URL('./default-policy.json', import.meta.url);

/**
 * Validates a policy document (already parsed JSON) against {@link policySchema}.
 *
 * @param source - names the document in the error, e.g. its path.
 * @param schema - {@link policySchema}, or `storedPolicySchema` for a tenant's stored policy.
 * @throws Error `invalid policy (<source>)` listing every problem with its path, so a bad policy
 *   stops the server at start instead of rating requests wrongly.
 */
export function parsePolicy(document: unknown, source = 'policy', schema: typeof policySchema | typeof storedPolicySchema = policySchema): Policy {
  const parsed = schema.safeParse(document);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`);
  throw new Error(`invalid policy (${source}):\n  ${problems.join('\n  ')}`);
}

/**
 * Reads and validates the approval policy at start: the file at `path` (`POLICY_FILE`), else the
 * shipped `default-policy.json`. The policy is the product team's: nothing an agent sends can change it.
 *
 * @throws Error when the file cannot be read, is not JSON, or is not a valid policy.
 */
export async function loadPolicy(path?: string): Promise<Policy> {
  const location = path ?? DEFAULT_POLICY_FILE;
  const source = String(path ?? 'default-policy.json');
  let text: string;
  try {
    text = await readFile(location, 'utf8');
  } catch (error) {
    throw new Error(`cannot read the policy file ${source}: ${(error as Error).message}`, { cause: error });
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (error) {
    throw new Error(`invalid policy (${source}): not JSON: ${(error as Error).message}`, { cause: error });
  }
  return parsePolicy(document, source);
}
