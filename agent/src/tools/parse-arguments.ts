import type { z } from 'zod';
import { CountersignError } from '@countersign/shared';
import type { AnyTool } from './tool-types.ts';

/**
 * Validates a model's arguments with the tool's schema and freezes the result, deeply.
 *
 * Freezing is what makes "the approved arguments are the executed arguments" hold inside the
 * process: the same frozen object goes to `toAuthorizationDetails` (whose hash the server
 * compares) and then to `execute`, so no hook can change an amount between the two.
 *
 * @returns the schema's output, frozen.
 * @throws CountersignError `invalid_request` naming each bad argument.
 */
export function parseArguments<T extends AnyTool>(tool: T, args: unknown): z.output<T['parameters']> {
  const schema: z.ZodType = tool.parameters;
  const parsed = schema.safeParse(args);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const path = issue.path.map(String).join('.');
      return path ? `${path}: ${issue.message}` : issue.message;
    });
    throw new CountersignError('invalid_request', `${tool.name}: ${problems.join('; ')}`, { cause: parsed.error });
  }
  return deepFreeze(parsed.data) as z.output<T['parameters']>;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
