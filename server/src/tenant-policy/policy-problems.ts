import type { z } from 'zod';
import { pointerToken } from './json-diff.ts';

/** One reason a policy was refused: where in the document (a JSON pointer, RFC 6901; `''` is the whole policy) and why. */
export interface PolicyProblem {
  path: string;
  message: string;
}

/** The most problems one refusal lists: a document that is wrong everywhere need not be listed whole. */
export const MAX_PROBLEMS = 50;

/**
 * The problems of a policy the schema refused, one per zod issue, each at its JSON pointer; an
 * unknown member is a problem at its own pointer (zod reports them together, at their object's).
 * At most {@link MAX_PROBLEMS}, in the order zod found them.
 */
export function policyProblems(error: z.ZodError): PolicyProblem[] {
  const pointer = (path: readonly PropertyKey[]) => path.map((token) => `/${pointerToken(String(token))}`).join('');
  return error.issues.flatMap((issue) => (issue.code === 'unrecognized_keys' ? issue.keys.map((key) => ({ path: pointer([...issue.path, key]), message: 'not a member of a policy here' })) : [{ path: pointer(issue.path), message: issue.message }])).slice(0, MAX_PROBLEMS);
}
