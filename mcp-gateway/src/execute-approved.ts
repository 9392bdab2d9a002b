import { CountersignError, type AuthorizationDetails } from '@countersign/shared';
import { McpError, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { outcomeReason } from './binding-message.ts';
import type { GatedCall, GatedCallDeps } from './gated-call.ts';
import { reasonCode } from './reason-code.ts';
import { gatewayResult } from './results.ts';
import type { CallRecord } from './store/index.ts';

type Outcome = Extract<CallRecord, { state: 'done' }>['outcome'];

/**
 * Spends an approval on exactly this call: `/redeem` with the details rebuilt from the call's own
 * arguments, a claim that the call started (one atomic replace of its approved record, before the
 * upstream is called, so it never starts twice), the upstream call, its result recorded, the
 * outcome reported. A `/redeem` whose answer was lost is found again by the retry's
 * `already_redeemed` (outcome still unknown, the record still approved) and runs then, once.
 *
 * @returns the upstream's result, or `refused` (`already_redeemed`, `invalid_token`,
 *   `approval_mismatch`, `temporarily_unavailable`…) when the redemption fails.
 * @throws McpError: the upstream's protocol error, passed on.
 * @see docs/design.md guarantees 3, 7 and 8
 */
export async function executeApproved(deps: GatedCallDeps, call: GatedCall, key: string, record: Extract<CallRecord, { state: 'approved' }>, details: AuthorizationDetails): Promise<CallToolResult> {
  const { auth_req_id } = record;
  let redemption_id: string;
  try {
    // The details as built from the arguments this call brings, never as read back: the server
    // compares their hash with the approved one (guarantee 3).
    ({ redemption_id } = await deps.countersign.redeem(record.access_token, details));
  } catch (error) {
    const code = reasonCode(error, deps);
    const earlier = code === 'already_redeemed' ? redemptionOf(error) : null;
    if (earlier?.outcome === 'unknown') {
      // Redeemed, and no outcome yet, while this call's record still holds the token it was spent
      // with: an earlier /redeem of this very call whose answer was lost (the token lives only in
      // this record). The claim below decides who runs it, so it runs once, and not never.
      redemption_id = earlier.redemption_id;
    } else {
      if (code === 'already_redeemed') await deps.store.put(key, { state: 'redeemed', auth_req_id, redemption_id: earlier?.redemption_id ?? '' }, deps.config.result_ttl_seconds);
      // A network or server failure keeps the token for a retry; a refusal is final.
      else if (error instanceof CountersignError && error.status < 500) await deps.store.delete(key);
      return gatewayResult({ status: 'refused', error: code, auth_req_id });
    }
  }
  // Claimed before the upstream is called, from exactly the approved record: from here on, this
  // call is never started again, by this run or any other.
  if (!(await deps.store.replace(key, record, { state: 'redeemed', auth_req_id, redemption_id }, deps.config.result_ttl_seconds))) {
    return gatewayResult({ status: 'refused', error: 'already_redeemed', auth_req_id });
  }
  deps.log(`${call.name}: ${auth_req_id} redeemed, calling the upstream`);
  let outcome: Outcome;
  try {
    outcome = { result: (await deps.upstream.callTool({ name: call.name, arguments: call.arguments })) as CallToolResult };
  } catch (error) {
    outcome = { error: error instanceof McpError ? { code: error.code, message: error.message, ...(error.data === undefined ? {} : { data: error.data }) } : { code: -32603, message: String((error as Error)?.message ?? error) } };
  }
  const done: CallRecord = { state: 'done', auth_req_id, outcome };
  try {
    await deps.store.put(key, done, deps.config.result_ttl_seconds);
  } catch (error) {
    // The call ran: the client gets its result; a repeat finds the claim (`already_redeemed`), never a second run.
    deps.log(`could not record the result of ${auth_req_id}: ${(error as Error).message}`);
  }
  await report(deps, redemption_id, outcome);
  return replay(done);
}

/** The redemption a 409 `already_redeemed` names (`{redemption: {redemption_id, outcome}}`), or null. */
function redemptionOf(error: unknown): { redemption_id: string; outcome: string } | null {
  const redemption = error instanceof CountersignError ? (error.body?.redemption as { redemption_id?: unknown; outcome?: { status?: unknown } } | undefined) : undefined;
  if (typeof redemption?.redemption_id !== 'string' || typeof redemption.outcome?.status !== 'string') return null;
  return { redemption_id: redemption.redemption_id, outcome: redemption.outcome.status };
}

async function report(deps: GatedCallDeps, redemption_id: string, outcome: Outcome): Promise<void> {
  const failure = 'error' in outcome ? outcome.error.message : outcome.result.isError ? textOf(outcome.result) : null;
  try {
    await deps.countersign.reportOutcome(redemption_id, failure === null ? { status: 'succeeded' } : { status: 'failed', reason: outcomeReason(failure) });
  } catch (error) {
    // The call ran: a lost report must not turn its result into an error.
    deps.log(`could not report the outcome of ${redemption_id}: ${(error as Error).message}`);
  }
}

/** Answers a recorded outcome again: the result, or the upstream's protocol error thrown anew. */
export function replay(record: Extract<CallRecord, { state: 'done' }>): CallToolResult {
  if ('result' in record.outcome) return record.outcome.result;
  const { code, message, data } = record.outcome.error;
  // McpError prefixes "MCP error <code>: " to the message; pass the upstream's own words on.
  throw new McpError(code, message.replace(/^MCP error -?\d+: /, ''), data);
}

function textOf(result: CallToolResult): string {
  return result.content.map((part) => (part.type === 'text' ? part.text : '')).join(' ');
}
