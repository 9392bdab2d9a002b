import type { Sleep } from '../client/index.ts';
// The client's own abortable sleep; the agent index exports only its type.
import { sleep as defaultSleep } from '../client/sleep.ts';
import { CountersignError } from '@countersign/shared';
import { buildApprovalRequest } from './build-action.ts';
import { isGatedTool } from './define-tool.ts';
import { describeTool } from './describe-tools.ts';
import { parseArguments } from './parse-arguments.ts';
import { createKeyedLock } from './keyed-lock.ts';
import { callKey, createMemoryPendingApprovals, type PendingApprovals } from '../pending/index.ts';
import { refusalAsValue, refused } from './refusal.ts';
import type { ToolCallResult } from './result-types.ts';
import { createSettler, type Authorization, type RunnerClient } from './settle-approval.ts';
import type { AnyGatedTool, AnyPlainTool, AnyTool, ToolDescription } from './tool-types.ts';
import type { WaitStrategy } from './wait-for-approval.ts';

export type { Authorization, RunnerClient };

/** Options of {@link createToolRunner}. */
export interface ToolRunnerOptions<C> {
  /** The agent client (`createAgentClient`); for ping, registered with `token_delivery_mode: 'ping'`. */
  client: RunnerClient;
  /** The tools the model may call; names must be unique. */
  tools: readonly AnyTool<C>[];
  /** How a call waits for the decision: `'none'`, `'poll'` or `{ ping }` (see {@link WaitStrategy}). */
  wait: WaitStrategy;
  /** Seconds a call waits before it ends `approval_pending`; until the request is decided or expires when absent. */
  waitTimeoutSeconds?: number;
  /** Where approvals wait between a run that ended waiting and its resumption; in memory by default. */
  pending?: PendingApprovals;
  /** Epoch milliseconds; `Date.now` by default. */
  now?: () => number;
  /** For the ping deadline; a `setTimeout` sleep by default. Polling uses the client's own. */
  sleep?: Sleep;
}

/** Per call: abort a wait (the call then rejects with the signal's reason; the request stays on the server). */
export interface CallOptions {
  signal?: AbortSignal;
}

/** Per authorization: see {@link ToolRunner.authorize}. */
export interface AuthorizeOptions extends CallOptions {
  /** `'none'`: ask, or read a known request's decision once, and never wait; the runner's strategy when absent. */
  wait?: 'none';
  /**
   * Told once the call's request exists (asked now, or found waiting in the store), before any
   * wait: show the person the `binding_code`, or keep a run state with {@link ToolRunner.saveRunState}.
   * `approved` is true when the store already holds the token.
   */
  onRequest?: (request: AuthorizeRequest) => void | Promise<void>;
}

/** A call's approval request, as {@link AuthorizeOptions.onRequest} is told of it. */
export interface AuthorizeRequest {
  call_key: string;
  auth_req_id: string;
  /** Number matching: the two digits the person picks on the phone. */
  binding_code?: string;
  /** Seconds until the request (or, once issued, the token) expires. */
  expires_in: number;
  approved: boolean;
}

/** Runs a model's tool calls and enforces each tool's approval mark. Made by {@link createToolRunner}. */
export interface ToolRunner<C> {
  /**
   * Where this runner keeps its waiting approvals (the `pending` option, or its in-memory
   * default). A framework adapter reads it to find the calls a restarted agent has left to resume
   * (`list()`), and attaches its serialized run state to a record (`run_state`, kept by the runner).
   */
  readonly pending: PendingApprovals;
  /**
   * The key under which a call's approval waits (see `callKey`): the tool's name and the hash of
   * its arguments once validated by the tool's schema.
   *
   * @throws CountersignError `invalid_request` for an unknown tool or arguments the schema refuses.
   */
  callKey(name: string, args: unknown): Promise<string>;
  /** Every tool, as shown to a model. */
  listTools(): ToolDescription[];
  /** Every tool marked as needing approval. */
  listGatedTools(): ToolDescription[];
  /**
   * Runs one tool call. An ungated tool just runs. A gated tool asks for approval of the exact
   * action its arguments stand for, waits by the runner's strategy, and runs only after its
   * approval token was redeemed against the action rebuilt from these same arguments. A call
   * whose approval already waits in the runner's store (the same tool and arguments, see
   * {@link ToolRunner.callKey}) resumes it instead of asking again: an agent that restarts and
   * makes its calls again picks up where it stopped.
   *
   * @param name - the tool the model called.
   * @param args - the model's arguments, validated with the tool's schema.
   * @param context - handed to the tool's hooks and `execute`.
   * @returns the {@link ToolCallResult} to give back to the model.
   * @throws a 5xx or network error of the server (unknown whether anything was spent); the
   *   signal's reason when it aborts. A refusal, a denial or a failure is a value, not a throw.
   */
  call(name: string, args: unknown, context?: C, options?: CallOptions): Promise<ToolCallResult>;
  /**
   * Resumes a call that ended `approval_pending`, with the arguments the resumed run would run
   * the tool with. Reads the decision (one poll, then the runner's strategy) and, once approved,
   * proceeds as {@link ToolRunner.call}. Arguments other than the approved ones are refused by the
   * server (`approval_mismatch`) before anything runs, and the approval stays usable for the
   * approved arguments.
   *
   * @returns as {@link ToolRunner.call}; `refused` with `invalid_grant` for an `auth_req_id` this
   *   runner has no pending approval for (never asked, already spent, denied or expired).
   */
  resume(auth_req_id: string, args: unknown, context?: C, options?: CallOptions): Promise<ToolCallResult>;
  /**
   * The first half of a gated call, for an agent framework that approves a call in one step and
   * runs it in another: validates `args` as {@link ToolRunner.call} does, asks for approval of
   * the exact action (or finds the approval this call already waits for in the store, under the
   * same per-call lock, so identical calls made at once ask once), and waits for the decision by
   * the runner's strategy. It never redeems and never runs the tool: once approved, the token
   * stays in the store, and a later `call` with the same name and arguments redeems it without
   * asking again. Other arguments are another call, and ask again.
   *
   * @param name - a gated tool of this runner.
   * @param args - the model's arguments, validated with the tool's schema.
   * @param context - handed to the tool's approval hooks (`login_hint`, `toAuthorizationDetails`…).
   * @returns `approved` (the token is held), `denied`, `expired` (the record is dropped: a later
   *   call asks anew), `approval_pending` (no decision within `waitTimeoutSeconds`, with
   *   `wait: 'none'`, or the signal aborted; the same call resumes it), or `refused` with the
   *   reason code: `invalid_request` (an unknown or ungated tool, arguments the schema refuses),
   *   a refusal of `bc-authorize` (`transaction_conflict`…) or of the token endpoint (`invalid_grant`).
   * @throws a 5xx or network error of the server.
   * @see CIBA Core 1.0 §7 (asking), §10 (polling and ping)
   * @example Approve in the framework's approval step, run in its execute step
   * ```ts
   * const answer = await runner.authorize('refund_order', args, session);
   * if (answer.status === 'approved') await runner.call('refund_order', args, session); // redeems, runs once
   * ```
   */
  authorize(name: string, args: unknown, context?: C, options?: AuthorizeOptions): Promise<Authorization>;
  /**
   * Keeps a framework adapter's serialized run state (`run_state`) on a call's pending record,
   * under the lock the runner's own writes to that record take, so it never overwrites a token
   * stored meanwhile (the token endpoint issues it once).
   *
   * @returns false when the call has no pending record (spent, denied, expired, never asked).
   */
  saveRunState(call_key: string, run_state: string): Promise<boolean>;
}

/**
 * Creates a tool runner: the place where "this tool needs a person's yes" is enforced, whatever
 * the prompt or the model says. See {@link ToolRunner}.
 *
 * @throws TypeError for two tools of one name.
 * @see CIBA Core 1.0 §7 (asking), §10 (polling and ping), DESIGN.md guarantees 1, 3, 7, 8
 * @example One run that waits by polling
 * ```ts
 * const runner = createToolRunner({ client: createAgentClient({ issuer, clientId, clientSecret }),
 *   tools: [lookupOrder, refundOrder], wait: 'poll', waitTimeoutSeconds: 120 });
 * const result = await runner.call('refund_order', { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged' });
 * // { status: 'executed', result: { refund_id: 're_1' }, outcome: { status: 'succeeded', reference: 're_1', … } }
 * // or { status: 'approval_pending', auth_req_id, … }: end the run; later runner.resume(auth_req_id, sameArgs)
 * ```
 */
export function createToolRunner<C = undefined>(options: ToolRunnerOptions<C>): ToolRunner<C> {
  const { client, wait, waitTimeoutSeconds } = options;
  const now = options.now ?? (() => Date.now());
  const sleep = options.sleep ?? defaultSleep;
  const pending = options.pending ?? createMemoryPendingApprovals(now);
  const tools = new Map<string, AnyTool<C>>();
  for (const tool of options.tools) {
    if (tools.has(tool.name)) throw new TypeError(`two tools are named ${tool.name}`);
    tools.set(tool.name, tool);
  }
  const descriptions = [...tools.values()].map(describeTool);
  // One lock per request for settling it, one per call for finding or asking for its approval.
  const exclusive = createKeyedLock();
  const asking = createKeyedLock();
  const { settle, authorize: decide, saveRunState } = createSettler<C>({ client, wait, waitTimeoutSeconds, pending, now, sleep });

  async function call(name: string, rawArgs: unknown, context?: C, { signal }: CallOptions = {}): Promise<ToolCallResult> {
    const tool = tools.get(name);
    if (!tool) return refused(name, new CountersignError('invalid_request', `there is no tool ${name}`));
    return refusalAsValue(tool.name, undefined, async () => {
      const args = parseArguments(tool, rawArgs);
      if (!isGatedTool(tool)) return runPlain(tool, args, context as C, signal);
      const { auth_req_id, pollFirst } = await ask(tool, args, context as C);
      return refusalAsValue(tool.name, auth_req_id, () =>
        exclusive(auth_req_id, () => settle({ tool, args, context: context as C, auth_req_id, pollFirst, ...(signal ? { signal } : {}) })),
      );
    });
  }

  /**
   * Finds the call's pending approval, or asks for one. Under the call's own lock, so the same
   * call made twice at once asks once; a call made again (by this process or the next, with the
   * same store) resumes the approval it was waiting for instead of asking the person again.
   */
  async function ask(tool: AnyGatedTool<C>, args: unknown, context: C): Promise<{ auth_req_id: string; pollFirst: boolean; call_key: string }> {
    const call_key = await callKey(tool.name, args);
    return asking(call_key, async () => {
      const known = await pending.get(call_key);
      if (known) return { auth_req_id: known.auth_req_id, pollFirst: true, call_key };
      const request = await buildApprovalRequest(tool, args, context);
      const ping = typeof wait === 'object' ? wait.ping : undefined;
      const asked = await client.requestApproval({ ...request, ...(ping ? { client_notification_token: ping.client_notification_token } : {}) });
      // The same transaction_id answers the same auth_req_id: keep a token already fetched for it.
      const sameRequest = await pending.getByRequest(asked.auth_req_id);
      if (sameRequest?.tool !== tool.name) {
        const code = asked.binding_code === undefined ? {} : { binding_code: asked.binding_code };
        await pending.put({ call_key, auth_req_id: asked.auth_req_id, tool: tool.name, interval: asked.interval, expires_at: now() + asked.expires_in * 1000, ...code });
      }
      return { auth_req_id: asked.auth_req_id, pollFirst: false, call_key };
    });
  }

  async function resume(auth_req_id: string, rawArgs: unknown, context?: C, { signal }: CallOptions = {}): Promise<ToolCallResult> {
    const record = await pending.getByRequest(auth_req_id);
    const tool = record && tools.get(record.tool);
    if (!tool || !isGatedTool(tool)) {
      return refused('', new CountersignError('invalid_grant', 'this runner has no pending approval for that auth_req_id'), auth_req_id);
    }
    return refusalAsValue(tool.name, auth_req_id, async () => {
      const args = parseArguments(tool, rawArgs);
      return exclusive(auth_req_id, () => settle({ tool, args, context: context as C, auth_req_id, pollFirst: true, ...(signal ? { signal } : {}) }));
    });
  }

  async function authorize(name: string, rawArgs: unknown, context?: C, options: AuthorizeOptions = {}): Promise<Authorization> {
    const { signal, onRequest } = options;
    const tool = tools.get(name);
    if (!tool || !isGatedTool(tool)) {
      return refused(name, new CountersignError('invalid_request', `there is no tool ${name} that needs approval`));
    }
    return refusalAsValue(tool.name, undefined, async () => {
      const args = parseArguments(tool, rawArgs);
      const { auth_req_id, pollFirst, call_key } = await ask(tool, args, context as C);
      return refusalAsValue(tool.name, auth_req_id, async () => {
        const held = await pending.getByRequest(auth_req_id);
        if (held && held.call_key !== call_key) {
          // Other arguments that build the very same action wait for this request already: one
          // approval runs one call, and a `call` with these arguments would find no token.
          throw new CountersignError('transaction_conflict', `${tool.name}: another call waits for approval of the same action`);
        }
        if (onRequest) await tellRequest(auth_req_id, onRequest);
        const wait = options.wait ? { wait: options.wait } : {};
        try {
          return await exclusive<Authorization>(auth_req_id, () => decide({ tool, args, context: context as C, auth_req_id, pollFirst, ...wait, ...(signal ? { signal } : {}) }));
        } catch (error) {
          // An aborted wait is no decision: the request stays on the server, the call resumes it.
          if (signal?.aborted && error === signal.reason) return undecided(tool.name, auth_req_id);
          throw error;
        }
      });
    });
  }

  async function tellRequest(auth_req_id: string, onRequest: NonNullable<AuthorizeOptions['onRequest']>) {
    const record = await pending.getByRequest(auth_req_id);
    if (!record) return;
    const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
    const expires_in = Math.max(0, Math.ceil((record.expires_at - now()) / 1000));
    await onRequest({ call_key: record.call_key, auth_req_id, expires_in, approved: record.access_token !== undefined, ...code });
  }

  async function undecided(tool: string, auth_req_id: string): Promise<Authorization> {
    const record = await pending.getByRequest(auth_req_id);
    if (!record) return refused(tool, new CountersignError('invalid_grant', 'the approval was already settled'), auth_req_id);
    const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
    return { status: 'approval_pending', tool, auth_req_id, expires_in: Math.max(0, Math.ceil((record.expires_at - now()) / 1000)), interval: record.interval, ...code };
  }

  async function keyOf(name: string, rawArgs: unknown): Promise<string> {
    const tool = tools.get(name);
    if (!tool) throw new CountersignError('invalid_request', `there is no tool ${name}`);
    return callKey(tool.name, parseArguments(tool, rawArgs));
  }

  return {
    pending,
    callKey: keyOf,
    listTools: () => [...descriptions],
    listGatedTools: () => descriptions.filter((tool) => tool.requiresApproval),
    call,
    resume,
    authorize,
    saveRunState,
  };
}

/** Runs an ungated tool; a throw is the tool's failure, told to the model. */
async function runPlain<C>(tool: AnyPlainTool<C>, args: unknown, context: C, signal?: AbortSignal): Promise<ToolCallResult> {
  try {
    const result: unknown = await tool.execute(args, { context, ...(signal ? { signal } : {}) });
    return { status: 'executed', tool: tool.name, result };
  } catch (error) {
    return { status: 'failed', tool: tool.name, reason: error instanceof Error ? error.message : String(error) };
  }
}
