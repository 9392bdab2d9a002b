import { decisionOps } from './lifecycle-decisions.ts';
import { mandateOps } from './lifecycle-mandates.ts';
import { tokenOps } from './lifecycle-tokens.ts';
import type { Lifecycle, LifecycleTimes, Swap } from './lifecycle-types.ts';

/*
 * The life of an approval request, in one place: the states and the operations between them are
 * the table `TRANSITIONS` (`lifecycle-transitions.ts`, with the diagram and the entry each writes),
 * the typed operations are the `Lifecycle` interface (`lifecycle-types.ts`), and their guards and
 * fields are in `lifecycle-decisions.ts` (approve, deny, escalate, expire), `lifecycle-tokens.ts`
 * (issueToken, redeem, the outcome) and `lifecycle-mandates.ts` (spend, revoke, a spend's outcome).
 * `createLifecycle` below puts them together: it stays the only writer of a request's state.
 */

export { MANDATE_OPS, TRANSITIONS, type DenialCause, type Transition, type TransitionOp } from './lifecycle-transitions.ts';
export { outboxField, outboxOf, PROPOSE_SEQ } from './lifecycle-entries.ts';
export { SPEND_GUARDS, type Lifecycle, type LifecycleTimes, type PartyApprovalInput, type PresentedTokenGuard, type SpendInput, type Swap, type SwapResult } from './lifecycle-types.ts';

/** The `once` token of a wrong number-matching pick's refusal (`AuditLog.record`), whichever path audits it. */
export function wrongPickToken(pick: string): string {
  return `pick.${pick}`;
}

/**
 * The {@link Lifecycle} over a {@link Swap}. Pure: the guards, the fields and the entry of each
 * operation; the swap does the writing and the delivering.
 */
export function createLifecycle(swap: Swap, times: LifecycleTimes): Lifecycle {
  return { ...decisionOps(swap, times), ...tokenOps(swap, times), ...mandateOps(swap, times) };
}
