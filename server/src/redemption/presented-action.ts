import { detailsHash } from '@countersign/shared';

/** The action an executor presents to `/redeem`, as it wrote it. */
export interface PresentedAction {
  /** `authorization_details` as parsed from the body, untouched by any schema. */
  details: unknown;
  /** Whether every number in it was written as JCS writes it (`49000` or `1.5`, not `49000.0`, `4.9e4`, `1.50` or `-0`; see `isJcsNumber`). */
  numbersExact: boolean;
  /** How deep its arrays and objects nest (at most: the body's depth will do). */
  depth: number;
}

/**
 * Deeper than any registered action nests (a payment is 3 deep: the array, the action, its
 * payee): a presented action deeper than this cannot be the approved one, and is not hashed,
 * since JCS recurses once per level.
 */
const MAX_ACTION_DEPTH = 32;

/**
 * The `details_hash` of the action as presented: JCS of exactly what the executor sent, with no
 * schema in between. A schema would NFC-normalise and trim the display text first, so `"ACME Ltd "`
 * or an NFD `"Zoe\u0308"` would hash as the approved `"ACME Ltd"` and `"Zoë"`: the executor would be
 * told "approved" for bytes the person never saw, and act on them. Null when it cannot match: a
 * number spelled otherwise than the approved (canonical) form writes it, nesting deeper than any
 * action, or no action at all.
 * @see RFC 8785; docs/design.md guarantee 3
 */
export async function hashAsPresented(presented: PresentedAction): Promise<string | null> {
  if (!presented.numbersExact || presented.depth > MAX_ACTION_DEPTH || presented.details === undefined) return null;
  return detailsHash(presented.details);
}
