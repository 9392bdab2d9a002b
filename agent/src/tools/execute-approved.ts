import type { AgentClient } from '../client/index.ts';
import { CountersignError } from '@countersign/shared';
import { toDisplayText, type OutcomeReport } from '@countersign/shared';
import { buildAction } from './build-action.ts';
import type { ApprovedRunResult, ReportedOutcome } from './result-types.ts';
import type { GatedTool } from './tool-types.ts';

/** The part of the agent client that spends an approval and reports what happened. */
export type RedeemingClient = Pick<AgentClient, 'redeem' | 'reportOutcome'>;

/** Options of {@link executeApproved}. */
export interface ExecuteApprovedOptions<C, R = unknown> {
  client: RedeemingClient;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  tool: GatedTool<any, R, C>;
  /** The validated, frozen arguments (see `parseArguments`): both the redeemed action and the executed call come from them. */
  args: unknown;
  context: C;
  /** The approval token the token endpoint issued for this request. */
  access_token: string;
  /** Echoed in a refusal, so the model can tell which approval was refused. */
  auth_req_id?: string;
  signal?: AbortSignal;
}

/** Limits of the outcome report's texts (shared `outcomeReport`). */
const MAX_REFERENCE = 200;
const MAX_REASON = 500;

/**
 * Spends an approval and runs the tool: rebuilds the action from `args`, reads the records its
 * preconditions name (`approval.currentVersions`, when the tool has it), redeems the token
 * against both (`POST /redeem`), runs `execute` with the same `args` and the redemption's
 * idempotency key only if the redemption succeeded, and reports the outcome.
 *
 * The action is rebuilt, never read back from the token or the approval request: if the arguments
 * differ from the approved ones by one minor unit, the hashes differ and the server refuses
 * (`approval_mismatch`, docs/design.md guarantee 3) before anything runs.
 *
 * @returns `executed` or `failed` with the reported outcome; `refused` with the gate's code
 *   (`approval_mismatch`, `already_redeemed`, `invalid_token`, `stale_record`, `unauthorized_client`).
 * @throws a 5xx or network error of `redeem` (whether the token was spent is then unknown: retry,
 *   the redemption is single-use); whatever building the action throws.
 * @see docs/design.md guarantees 3, 7, 8
 */
export async function executeApproved<C, R = unknown>(options: ExecuteApprovedOptions<C, R>): Promise<ApprovedRunResult<R>> {
  const { client, tool, args, context, access_token, auth_req_id, signal } = options;
  const which = auth_req_id ? { auth_req_id } : {};
  const details = await buildAction(tool, args, context);
  const current_versions = await tool.approval.currentVersions?.(args, context);
  let redemption;
  try {
    redemption = current_versions === undefined ? await client.redeem(access_token, details) : await client.redeem(access_token, details, { current_versions });
  } catch (error) {
    if (error instanceof CountersignError && error.status < 500) {
      return { status: 'refused', tool: tool.name, error: error.code, error_description: error.message, ...which };
    }
    throw error;
  }
  const { redemption_id, idempotency_key } = redemption;
  let result: R;
  try {
    result = await tool.execute(args, { context, idempotency_key, redemption, ...(signal ? { signal } : {}) });
  } catch (error) {
    const reason = displayable(error instanceof Error ? error.message : String(error), MAX_REASON) ?? 'the tool failed';
    const outcome = await report(client, redemption_id, { status: 'failed', reason });
    return { status: 'failed', tool: tool.name, reason, outcome, ...which };
  }
  const reference = displayable(tool.approval.reference?.(result), MAX_REFERENCE);
  const outcome = await report(client, redemption_id, { status: 'succeeded', ...(reference ? { reference } : {}) });
  return { status: 'executed', tool: tool.name, result, outcome, ...which };
}

/** Reports the outcome. The action ran (or failed) either way, so a failed report is a flag, not an error. */
async function report(client: RedeemingClient, redemption_id: string, outcome: OutcomeReport): Promise<ReportedOutcome> {
  let reported = true;
  try {
    await client.reportOutcome(redemption_id, outcome);
  } catch {
    reported = false;
  }
  return { redemption_id, ...outcome, reported };
}

/**
 * A text the server accepts in an outcome (shared `displayText`): the person sees it, so what they
 * could not see becomes spaces rather than get the report refused (shared `toDisplayText`).
 */
function displayable(text: string | undefined, max: number): string | undefined {
  // Cut at `max` code units, but never between the two halves of a surrogate pair.
  const cleaned =
    text === undefined
      ? ''
      : toDisplayText(text)
          .slice(0, max)
          .replace(/[\ud800-\udbff]$/, '')
          .trim();
  return cleaned ? cleaned : undefined;
}
