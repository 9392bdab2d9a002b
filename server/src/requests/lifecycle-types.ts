import type { ApprovalParty, OutcomeReport } from '@countersign/shared';
import type { BoundedIncrement, Fields, Guard } from '../store/index.ts';
import type { Transition } from './lifecycle-transitions.ts';
import type { MandateSpend } from './mandate-fields.ts';
import type { RequestRef } from './request-deadlines.ts';
import type { ApprovalRequest } from './request-record.ts';

/**
 * A compare-and-swap of one request's record that writes `transition` as an outbox entry with it,
 * and delivers the entry's consequences when it applies (see `outbox.ts`).
 */
export type Swap = (ref: RequestRef, guards: Guard[], set: Fields, transition: Transition, options?: { ttlSeconds?: number; increments?: BoundedIncrement[] }) => Promise<SwapResult>;

/** The answer of a {@link Swap}: the request after it, or, when a guard failed, the record as it stands (null: gone). */
export type SwapResult = { ok: true; request: ApprovalRequest; fields: Fields } | { ok: false; fields: Fields | null; failedGuard?: number };

/** Lifetimes the operations write, seconds. */
export interface LifecycleTimes {
  /** Approval token lifetime when the tier names none (`APPROVAL_TOKEN_TTL`). */
  approvalTokenTtl: number;
  /** How long a request that is over keeps answering (at least 600 s, docs/design.md "The request lifecycle"). */
  graceSeconds: number;
  /** How long a redeemed request is kept, with its outcome. */
  retentionSeconds: number;
}

/** One party's passkey approval, as {@link Lifecycle.approve} records it. */
export interface PartyApprovalInput {
  party: ApprovalParty;
  sub: string;
  device_id: string;
  credential_id: string;
  /** A mandate's approval: its evidence as JSON, written to `evidence:<party>`, and that JSON's hash (kept in the approval). */
  evidence?: { json: string; hash: string };
}

/**
 * The typed operations on a request: the only code that writes a request's state. Each answers
 * the swap's result; a refusal (a guard that failed) changes nothing, and its caller says why from
 * the record it gets back.
 */
export interface Lifecycle {
  /**
   * One party's approval of a pending request, from the record as `fields` reads it: `approve`
   * when it is the last party missing (the request becomes `approved`, its approval token lifetime
   * starting now), else `approveParty`. The guards pin the state, the deadline, this party's slot
   * (empty) and every other party's slot exactly as read, so of two parties approving at once
   * exactly one is last; the other's swap fails, and it retries from a fresh read.
   */
  approve(fields: Fields, approval: PartyApprovalInput, now: number): Promise<SwapResult>;
  /** `pending → denied` before the decision deadline: any one party saying no denies it. */
  deny(ref: RequestRef, decision: Omit<Extract<Transition, { op: 'deny' }>, 'op' | 'at'>, now: number): Promise<SwapResult>;
  /**
   * `pending → pending`, handed to the next role of its chain: only while pending and before its
   * deadline, only once the window of the step it is at has passed, and only from that step (the
   * guard pins `escalation_step` as `request` read it), so of two sweeps only one hands it on, and
   * an approval that read the step before cannot land after it (see `approve`). Not ok (nothing
   * written) when there is no step left or its time has not come.
   */
  escalate(request: ApprovalRequest, now: number): Promise<SwapResult>;
  /**
   * `pending | approved → expired`, once the deadline of the state `request` was read in has
   * passed; the guard pins that state and that deadline, so it never races a decision or a
   * redemption that beat the deadline. Not ok for a request in any other state.
   */
  expire(request: ApprovalRequest, now: number): Promise<SwapResult>;
  /**
   * Binds a token (`jti`, and `hash`: base64url(SHA-256) of its compact text, kept as `token_hash`)
   * to an approved request, once, while the approval lasts; `extra` fields are written with it.
   */
  issueToken(request: ApprovalRequest, token: { jti: string; hash: string; expires_in: number }, extra: Fields, now: number): Promise<SwapResult>;
  /**
   * `approved → redeemed`, once, guarded by the presented token ({@link PresentedTokenGuard}), the
   * approval's deadline and the presented `details_hash`.
   */
  redeem(ref: RequestRef, presented: PresentedTokenGuard & { details_hash: string; redemption_id: string }, now: number): Promise<SwapResult>;
  /** Outcome `unknown → succeeded | failed` of the redemption `redemption_id`, once. */
  reportOutcome(ref: RequestRef, redemptionId: string, report: OutcomeReport, now: number): Promise<SwapResult>;
  /** Flags a redemption whose outcome is overdue, once (it stays `unknown`). */
  flagOutcome(ref: RequestRef, redemptionId: string, now: number): Promise<SwapResult>;
  /**
   * A mandate's spend, `approved → approved`, in one compare-and-swap: guarded (in the order of
   * {@link SPEND_GUARDS}) by the state, the token ({@link PresentedTokenGuard}), the mandate's `details_hash`, its end
   * (`approval_expires_at > now`) and start (`mandate_starts_at ≤ now`), the spend's
   * `transaction_id` not spent yet, and the period's total and count raised within their bounds.
   */
  spend(ref: RequestRef, input: SpendInput, now: number): Promise<SwapResult>;
  /**
   * `approved → expired` with `expiry_reason: mandate_revoked`, once: no spend lands after it.
   * Only a mandate's request (its record has `mandate_starts_at`), and only before its end.
   */
  revoke(ref: RequestRef, by: { by: string; channel: 'device' | 'admin' }, now: number): Promise<SwapResult>;
  /** A spend's outcome `unknown → succeeded | failed`, once; the request's state is not touched. */
  reportSpendOutcome(ref: RequestRef, spend: { redemption_id: string; transaction_id: string }, report: OutcomeReport, now: number): Promise<SwapResult>;
  /** Flags a spend whose outcome is overdue, once (it stays `unknown`); the request's state is not touched. */
  flagSpendOutcome(ref: RequestRef, spend: { redemption_id: string; transaction_id: string; spent_at: number }, now: number): Promise<SwapResult>;
}

/**
 * One spend as {@link Lifecycle.spend} applies it: the token and mandate it is made under, the
 * spend to record, and the counters of its period with their bounds.
 */
export interface SpendInput extends PresentedTokenGuard {
  /** The mandate's `details_hash` (the token's claim). */
  details_hash: string;
  spend: MandateSpend;
  /** The currency's `total_minor`: the period's total after this spend must be at most this. */
  total_max: number;
  /** `max_spends`, when the mandate sets one. */
  count_max?: number;
}

/**
 * What a redemption's swap knows of the token presented: its `jti` claim and, in `hash`, the
 * base64url(SHA-256) of its text. With `hash`, the swap's token guard is `token_hash` = `hash`,
 * which only the token issued for the record passes, whatever its (unverified) claims say. Without
 * it, the guard is `token_jti` = `jti`: only for a record whose token was issued before hashes were
 * kept, and only once the token's signature has been verified.
 */
export interface PresentedTokenGuard {
  jti: string;
  hash?: string;
}

/** The guards of a spend, in this order: what {@link SpendInput} refusals are read from (`failedGuard`). */
export const SPEND_GUARDS = ['state', 'token', 'details_hash', 'ends_at', 'starts_at', 'transaction', 'total', 'count'] as const;
