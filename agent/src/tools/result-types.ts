import type { ErrorCode } from '@countersign/shared';

/** The outcome of a gated tool's run, as reported to Countersign (docs/design.md guarantee 8). */
export interface ReportedOutcome {
  redemption_id: string;
  status: 'succeeded' | 'failed';
  /** The executor's reference on success (a refund id…). */
  reference?: string;
  /** Why it failed, in the executor's words. */
  reason?: string;
  /** False when the tool ran but reporting the outcome to Countersign failed. */
  reported: boolean;
}

/**
 * What a tool call comes to, for the model to read. Expected answers are values; only a broken
 * system (a 5xx, a network error) is thrown, because then it is unknown whether an approval was
 * spent, and that is not a "no".
 *
 * - `executed`: the tool ran; for a gated tool after a successful redemption, with its `outcome`
 *   and the `auth_req_id` of the approval it spent.
 * - `failed`: the tool ran and threw; for a gated tool the approval is spent and the failure reported.
 * - `approval_pending`: nothing ran; the person has not decided yet. End the run and `resume` it later.
 *   With `binding_code` (number matching), show the person that code: their phone asks them to pick it.
 * - `refused`: nothing ran: malformed arguments (`invalid_request`), an unknown tool, or the gate
 *   said no (`approval_mismatch`, `already_redeemed`, `invalid_token`, `transaction_conflict`…).
 * - `denied`: the person said no; nothing ran.
 * - `expired`: nobody decided in time; nothing ran.
 */
export type ToolCallResult<R = unknown> =
  | { status: 'executed'; tool: string; result: R; outcome?: ReportedOutcome; auth_req_id?: string }
  | { status: 'failed'; tool: string; reason: string; outcome?: ReportedOutcome; auth_req_id?: string }
  | { status: 'approval_pending'; tool: string; auth_req_id: string; expires_in: number; interval: number; binding_code?: string }
  | { status: 'refused'; tool: string; error: ErrorCode; error_description: string; auth_req_id?: string }
  | { status: 'denied'; tool: string; auth_req_id: string }
  | { status: 'expired'; tool: string; auth_req_id: string };

/** The statuses of {@link ToolCallResult}. */
export type ToolCallStatus = ToolCallResult['status'];

/**
 * What spending an approval comes to (`executeApproved`): the tool ran (`executed` or `failed`,
 * always with the reported outcome), or the gate refused and nothing ran.
 */
export type ApprovedRunResult<R = unknown> = { status: 'executed'; tool: string; result: R; outcome: ReportedOutcome; auth_req_id?: string } | { status: 'failed'; tool: string; reason: string; outcome: ReportedOutcome; auth_req_id?: string } | Extract<ToolCallResult<R>, { status: 'refused' }>;
