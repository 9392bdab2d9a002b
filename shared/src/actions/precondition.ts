import { z } from 'zod';
import type { DisplayField } from './display.ts';

/**
 * The name of a record in the executor's world that an action depends on, e.g. `order:1042` or
 * `invoice/INV-7`: 1 to 128 of letters, digits and `._:/-`, not `__proto__`: as a key of
 * `current_versions` it would set the parsed object's prototype and vanish (zod builds records as
 * plain objects), so an action naming it could never be redeemed and a version stated for it
 * would be dropped silently.
 */
export const recordName = z
  .string()
  .regex(/^[A-Za-z0-9._:/-]+$/, 'may hold only letters, digits and ._:/-')
  .min(1)
  .max(128)
  .refine((name) => name !== '__proto__', 'may not be __proto__');

/**
 * A record's version as its system spells it: a counter, a timestamp, an ETag (`W/"3f2a"`): 1 to
 * 128 printable ASCII characters without spaces.
 */
export const recordVersion = z
  .string()
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces')
  .min(1)
  .max(128);

/**
 * "Only while this record is at this version" (docs/audit.md "The world moves"): an action approved
 * against one state of a record must not run against another. Part of the action, so it is in
 * `details_hash`, shown to the person, and checked at `/redeem` against the version the executor
 * states (`current_versions`), refused with `stale_record` when they differ.
 */
export const precondition = z.strictObject({
  record: recordName,
  version: recordVersion,
});

/** A validated precondition. */
export type Precondition = z.infer<typeof precondition>;

/** How the person sees a precondition: one field, after the action's own. */
export function displayPrecondition(value: Precondition): DisplayField {
  return { label: 'Only if unchanged', value: `${value.record} at version ${value.version}` };
}
