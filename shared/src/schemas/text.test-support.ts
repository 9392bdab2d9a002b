/** A helper shared by the tests of the text schemas (text-*.test.ts): what a schema stores for an input, or the refusal it gives. */
import type { z } from 'zod';

/** The stored value, or the refusal's message. */
export function outcome(schema: z.ZodType, input: string): { value: unknown } | { refused: string } {
  const parsed = schema.safeParse(input);
  return parsed.success ? { value: parsed.data } : { refused: parsed.error.issues[0]!.message };
}
