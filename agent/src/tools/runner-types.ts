import type { Sleep } from '../client/index.ts';
import type { PendingApprovals } from '../pending/index.ts';
import type { ToolCallResult } from './result-types.ts';
import type { Authorization, RunnerClient } from './settle-approval.ts';
import type { AnyTool, ToolDescription } from './tool-types.ts';
import type { WaitStrategy } from './wait-for-approval.ts';

// The shapes of the tool runner (see create-tool-runner.ts), apart from its code.

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
