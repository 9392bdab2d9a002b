import { CountersignError, toDisplayText, type AuthorizationDetails, type ToolAnnotations, type ToolCallDetails } from '@countersign/shared';
import type { AgentClient, KeyedLock, Sleep } from '@countersign/agent';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { bindingMessage } from './binding-message.ts';
import { executeApproved, replay } from './execute-approved.ts';
import { reasonCode } from './reason-code.ts';
import { callKey, transactionId } from './call-key.ts';
import type { GatewayConfig } from './config.ts';
import { gatewayResult, type GatewayAnswer } from './results.ts';
import type { CallRecord, CallStore } from './store/index.ts';
import { waitForDecision, type Waiter } from './wait-for-decision.ts';

/** The part of the agent client the gateway uses. */
export type CountersignClient = Pick<AgentClient, 'requestApproval' | 'pollToken' | 'redeem' | 'reportOutcome'>;

/** What every gated call of one gateway shares. */
export interface GatedCallDeps {
  config: GatewayConfig;
  countersign: CountersignClient;
  store: CallStore;
  upstream: Client;
  /** Serialises the calls of one key in this process: one poller, one redeemer per call. */
  lock: KeyedLock;
  /** Epoch ms. */
  now: () => number;
  sleep: Sleep;
  log: (line: string) => void;
  /** When this process last polled each request (epoch ms), so a quick retry does not poll early. */
  lastPolls: Map<string, number>;
}

/** One `tools/call` of a gated tool, as the client sent it. */
export interface GatedCall {
  name: string;
  arguments: Record<string, unknown>;
  /** The tool as the upstream listed it, for its annotations; undefined when never listed. */
  tool: Tool | undefined;
  /** How this client waits: a signal, and URL elicitation when it has it. */
  waiter: Waiter;
}

/**
 * Runs one gated tool call through Countersign: proposes it as one `tool_call` action (or finds
 * the approval the same call already asked for), waits for the decision as long as the config
 * allows, and only after the approval and a successful `/redeem` of exactly these arguments calls
 * the upstream, once; then reports the outcome and answers the upstream's own result. A call that
 * already ran is answered with its recorded result and never runs again.
 *
 * @returns the upstream's result, or a gateway answer (`isError: true`): `approval_pending`,
 *   `denied`, `expired`, `refused` with a reason code.
 * @throws McpError: the upstream's own protocol error, passed on (and recorded for a replay).
 * @see docs/design.md "The MCP gateway", guarantees 1, 7 and 8; docs/mcp-gateway.md
 */
export function runGatedCall(deps: GatedCallDeps, call: GatedCall): Promise<CallToolResult> {
  const { config } = deps;
  const key = callKey(config.upstream.name, call.name, call.arguments);
  const startedAt = deps.now();
  return deps.lock(key, async () => {
    try {
      return await runLocked(deps, call, key, startedAt);
    } catch (error) {
      // The upstream's own protocol errors pass on; anything else here (the call store's Redis down,
      // Countersign unreachable) happened before the upstream was called: nothing ran.
      if (error instanceof McpError) throw error;
      deps.log(`${call.name}: ${(error as Error)?.message ?? String(error)}`);
      return gatewayResult({ status: 'refused', error: 'temporarily_unavailable' });
    }
  });
}

/** {@link runGatedCall} under the call's lock. */
async function runLocked(deps: GatedCallDeps, call: GatedCall, key: string, startedAt: number): Promise<CallToolResult> {
  const { config } = deps;
  // Time spent queued behind the same call counts: the client's timeout does not restart.
  const waitSeconds = Math.max(0, (call.waiter.waitSeconds ?? config.wait_seconds) - (deps.now() - startedAt) / 1000);
  call = { ...call, waiter: { ...call.waiter, waitSeconds } };
  let record = await deps.store.get(key);
  if (record?.state === 'done') return replay(record);
  // Redeemed but no result recorded: the process stopped while the upstream ran. It may have
  // run; it must never run twice.
  if (record?.state === 'redeemed') return gatewayResult({ status: 'refused', error: 'already_redeemed', auth_req_id: record.auth_req_id });
  // Asking again would only ring the phone of someone who already said no (a looping or
  // prompt-injected model would ring it forever).
  if (record?.state === 'denied') return gatewayResult({ status: 'denied', auth_req_id: record.auth_req_id });
  const details = toolCallDetails(deps, call, key);
  if (!record) {
    const proposed = await propose(deps, call, key, details);
    if ('status' in proposed) return gatewayResult(proposed);
    record = proposed;
  }
  if (record.state === 'pending') {
    const decided = await decide(deps, call, key, record);
    if (decided.state !== 'approved') return gatewayResult(decided.answer);
    record = decided.record;
  }
  // Narrowing lost across the reassignments above: done, redeemed and denied answered already.
  if (record.state !== 'approved') throw new Error(`unexpected call record state ${record.state}`);
  return executeApproved(deps, call, key, record, details);
}

/** The `tool_call` action of a call: docs/design.md "Actions", the exact arguments as the client sent them. */
function toolCallDetails(deps: GatedCallDeps, call: GatedCall, key: string): AuthorizationDetails {
  const annotations = knownAnnotations(call.tool?.annotations);
  const detail: ToolCallDetails = {
    type: 'tool_call',
    transaction_id: transactionId(key),
    server: deps.config.upstream.name,
    tool: call.name,
    arguments: call.arguments as ToolCallDetails['arguments'],
    ...(annotations ? { annotations } : {}),
  };
  return [detail];
}

const HINTS = ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const;

/**
 * The upstream's annotations as the `tool_call` type takes them: the four hints of MCP 2025-11-25
 * and `title` as display text. Members a newer upstream adds are left out rather than refused
 * by the server's strict schema, which would make the tool impossible to approve.
 */
function knownAnnotations(annotations: Tool['annotations']): ToolAnnotations | undefined {
  if (!annotations) return undefined;
  const known: ToolAnnotations = {};
  for (const hint of HINTS) if (typeof annotations[hint] === 'boolean') known[hint] = annotations[hint];
  const title = typeof annotations.title === 'string' ? toDisplayText(annotations.title).slice(0, 200).trim() : '';
  if (title) known.title = title;
  return Object.keys(known).length ? known : undefined;
}

async function propose(deps: GatedCallDeps, call: GatedCall, key: string, details: AuthorizationDetails): Promise<CallRecord | GatewayAnswer> {
  const binding_message = bindingMessage(deps.config.upstream.name, call.name, key);
  try {
    const expiry = deps.config.request_expiry_seconds;
    const answer = await deps.countersign.requestApproval({
      login_hint: deps.config.login_hint,
      authorization_details: details,
      binding_message,
      ...(expiry === undefined ? {} : { requested_expiry: expiry }),
    });
    const record: CallRecord = { state: 'pending', auth_req_id: answer.auth_req_id, binding_message, interval: answer.interval, expires_at: deps.now() + answer.expires_in * 1000 };
    await deps.store.put(key, record, answer.expires_in + 60);
    deps.log(`asked for approval of ${call.name}: ${answer.auth_req_id}`);
    return record;
  } catch (error) {
    return { status: 'refused', error: reasonCode(error, deps) };
  }
}

type Decided = { state: 'approved'; record: Extract<CallRecord, { state: 'approved' }> } | { state: 'other'; answer: GatewayAnswer };

async function decide(deps: GatedCallDeps, call: GatedCall, key: string, record: Extract<CallRecord, { state: 'pending' }>): Promise<Decided> {
  const { auth_req_id } = record;
  let decision;
  try {
    decision = await waitForDecision(deps, record, call.waiter, {
      url: approvalUrl(deps.config, auth_req_id),
      onSlowDown: (interval) => deps.store.put(key, { ...record, interval }, Math.max(1, (record.expires_at - deps.now()) / 1000 + 60)),
    });
  } catch (error) {
    // invalid_grant: the request is gone or its token was already issued: this record can never be spent.
    if (error instanceof CountersignError && error.code === 'invalid_grant') await deps.store.delete(key);
    return { state: 'other', answer: { status: 'refused', error: reasonCode(error, deps), auth_req_id } };
  }
  if (decision.status === 'pending') {
    const expires_in = Math.max(0, Math.ceil((record.expires_at - deps.now()) / 1000));
    return { state: 'other', answer: { status: 'approval_pending', auth_req_id, binding_message: record.binding_message, approval_url: approvalUrl(deps.config, auth_req_id), expires_in } };
  }
  if (decision.status !== 'approved') {
    if (decision.status === 'denied') await deps.store.put(key, { state: 'denied', auth_req_id }, deps.config.result_ttl_seconds);
    else await deps.store.delete(key);
    deps.log(`${call.name}: ${auth_req_id} ${decision.status}`);
    return { state: 'other', answer: { status: decision.status, auth_req_id } };
  }
  const approved = { state: 'approved', auth_req_id, binding_message: record.binding_message, access_token: decision.token.access_token, expires_at: deps.now() + decision.token.expires_in * 1000 } as const;
  // Kept before redeeming: the token is issued once, and a redeem that fails on the wire can be tried again.
  await deps.store.put(key, approved, decision.token.expires_in + 60);
  return { state: 'approved', record: approved };
}

/** The approver app's page of one request. */
export function approvalUrl(config: GatewayConfig, auth_req_id: string): string {
  const issuer = config.countersign.issuer.replace(/\/+$/, '');
  return config.approval_url.replaceAll('{issuer}', issuer).replaceAll('{auth_req_id}', encodeURIComponent(auth_req_id));
}
