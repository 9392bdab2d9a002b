import { z } from 'zod';
import { displayText } from './text.ts';

/** Request states (docs/design.md "States", fixed). */
export const REQUEST_STATES = ['pending', 'approved', 'denied', 'expired', 'redeemed'] as const;
/** One request state. */
export type RequestState = (typeof REQUEST_STATES)[number];

/** An executor's report of what really happened (docs/design.md guarantee 8). */
export const outcomeReport = z.strictObject({
  status: z.enum(['succeeded', 'failed']),
  /** The executor's own reference, e.g. the payment provider's refund id. Shown to the person. */
  reference: displayText(200).optional(),
  /** Why it failed, in the executor's words. Shown to the person, so held to the same rules as the action's text. */
  reason: displayText(500).optional(),
});
/** A validated outcome report. */
export type OutcomeReport = z.infer<typeof outcomeReport>;

/** A redemption's outcome: `unknown` until the executor reports. */
export type Outcome = { status: 'unknown' } | OutcomeReport;
