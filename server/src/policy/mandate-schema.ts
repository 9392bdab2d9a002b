import { z } from 'zod';

/** The longest a mandate may run when its type's policy sets no `max_duration_seconds`: 400 days (a year and a renewal month). */
export const DEFAULT_MANDATE_MAX_DURATION_SECONDS = 400 * 86_400;

/**
 * The members of a type's policy that only the `mandate` type reads (docs/mandates.md):
 * `max_duration_seconds`, the longest `starts_at … ends_at` a mandate may ask for, seconds (at most
 * ten years). Spread into each type's policy by `policy-schema.ts`; other types ignore it.
 */
export const mandatePolicyMembers = {
  max_duration_seconds: z
    .number()
    .int()
    .min(60)
    .max(10 * 366 * 86_400)
    .optional(),
};
