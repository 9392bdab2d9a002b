import type { ApprovalParty, OutcomeReport, RequestState } from '@countersign/shared';

/**
 * The life of an approval request, in one place (docs/reliability.md "The request lifecycle";
 * the states are those of the design contract, "Request states"). Every change of a request's
 * record goes through one of the operations of `Lifecycle` (`lifecycle-types.ts`, implemented in
 * `lifecycle-decisions.ts`, `lifecycle-tokens.ts` and `lifecycle-mandates.ts`): each owns its
 * guards and its field names, and is one compare-and-swap that also writes the {@link Transition}
 * as an outbox entry in the same atomic step (`outbox.ts`).
 * What follows a transition (audit, history, live updates, deadlines, pushes, client
 * notifications) subscribes to that entry where the app is composed (`consequences.ts`), and is
 * delivered at least once, from any instance, even after a crash between the swap and its
 * consequences.
 *
 *   propose                     → pending
 *   pending  ─approveParty─→ pending      (one party of several; the others still to come)
 *   pending  ─approve──────→ approved     (the last party)
 *   pending  ─deny─────────→ denied
 *   pending  ─escalate─────→ pending      (a window of the tier's chain passed: handed to the next role)
 *   pending  ─expire───────→ expired      (the decision deadline passed)
 *   approved ─issueToken───→ approved     (once: the token is bound to the request)
 *   approved ─redeem───────→ redeemed     (once, docs/design.md guarantee 7)
 *   approved ─expire───────→ expired      (not redeemed in time)
 *   redeemed ─reportOutcome→ redeemed     (outcome unknown → succeeded | failed, once)
 *   redeemed ─flagOutcome──→ redeemed     (the outcome is overdue: flagged once, still unknown)
 *
 * A mandate (docs/mandates.md) stays `approved` while it runs: its approval lasts until its
 * `ends_at`, each spend is a `spend` that leaves it approved, and it ends as `expired`, at its end
 * or when revoked (`expiry_reason: mandate_revoked`). The fixed state list is unchanged.
 *
 *   approved ─spend────────→ approved     (one payment within the bounds: counters raised, spend recorded)
 *   approved ─revoke───────→ expired      (the person or an operator stops the mandate)
 *   approved | expired ─reportSpendOutcome→ (unchanged)  (a spend's outcome, once)
 *   approved | expired ─flagSpendOutcome──→ (unchanged)  (a spend's outcome is overdue: flagged once, still unknown)
 *
 * The jobs that follow keep marks of their own on the record (`pushed_at:<sub>`, `notified_at`,
 * `notify_failed_at`, `expiry_pushed_at`), each written by a guarded write of its job so that a job
 * run twice acts once. Those say what a job did; they never change the request's state.
 */
export const TRANSITIONS = {
  propose: { from: [], to: 'pending' },
  approveParty: { from: ['pending'], to: 'pending' },
  approve: { from: ['pending'], to: 'approved' },
  deny: { from: ['pending'], to: 'denied' },
  escalate: { from: ['pending'], to: 'pending' },
  expire: { from: ['pending', 'approved'], to: 'expired' },
  issueToken: { from: ['approved'], to: 'approved' },
  redeem: { from: ['approved'], to: 'redeemed' },
  reportOutcome: { from: ['redeemed'], to: 'redeemed' },
  flagOutcome: { from: ['redeemed'], to: 'redeemed' },
  spend: { from: ['approved'], to: 'approved' },
  revoke: { from: ['approved'], to: 'expired' },
  // A spend's outcome may arrive after its mandate ended: the state is not guarded, nor changed.
  reportSpendOutcome: { from: ['approved', 'expired'], to: 'approved' },
  flagSpendOutcome: { from: ['approved', 'expired'], to: 'approved' },
} as const satisfies Record<string, { from: readonly RequestState[]; to: RequestState }>;

/** The operations of {@link TRANSITIONS}. */
export type TransitionOp = keyof typeof TRANSITIONS;

/** Why a request is denied: a party said no, the person said "this wasn't me", or the person picked a wrong number-matching code. */
export type DenialCause = 'denied' | 'fraud_reported' | 'wrong_binding_code';

/**
 * One transition as its outbox entry records it: what happened, when (epoch ms), and what the
 * record does not say itself. Everything else its consequences need is read from the record.
 */
export type Transition =
  | { op: 'propose'; at: number }
  | { op: 'approveParty'; at: number; party: ApprovalParty; waiting_for: ApprovalParty[] }
  | { op: 'approve'; at: number; party: ApprovalParty }
  /** `pick`: a wrong number-matching pick's own id, so its refusal is audited once on every path. */
  | { op: 'deny'; at: number; party: ApprovalParty; cause: DenialCause; sub: string; device_id: string; credential_id: string; pick?: string }
  /** `step`: the chain's step now reached (1 for the first hand-over); `from`: who held it until now. */
  | { op: 'escalate'; at: number; step: number; from: ApprovalParty[]; to: ApprovalParty }
  /** `reason` `escalation_exhausted`: the last role of the chain let the request run out too. */
  | { op: 'expire'; at: number; from: 'pending' | 'approved'; reason?: 'escalation_exhausted' }
  | { op: 'issueToken'; at: number; jti: string; expires_in: number }
  | { op: 'redeem'; at: number; redemption_id: string }
  | { op: 'reportOutcome'; at: number; redemption_id: string; status: OutcomeReport['status']; reference?: string }
  | { op: 'flagOutcome'; at: number; redemption_id: string }
  | { op: 'spend'; at: number; redemption_id: string; transaction_id: string; amount_minor: number; currency: string; payee_id: string }
  /** `by`: who revoked it (a device id, or `admin`); `channel` where from. */
  | { op: 'revoke'; at: number; by: string; channel: 'device' | 'admin' }
  | { op: 'reportSpendOutcome'; at: number; redemption_id: string; transaction_id: string; status: OutcomeReport['status']; reference?: string }
  /** `spent_at`: when the spend was made (epoch ms), for the audit's `seconds_since_redeemed`. */
  | { op: 'flagSpendOutcome'; at: number; redemption_id: string; transaction_id: string; spent_at: number };

/** The operations only a mandate's request takes (docs/mandates.md). */
export const MANDATE_OPS = ['spend', 'revoke', 'reportSpendOutcome', 'flagSpendOutcome'] as const satisfies readonly TransitionOp[];
