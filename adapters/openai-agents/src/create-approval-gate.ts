import { createToolRunner, type ToolRunner, type ToolRunnerOptions } from '@countersign/agent';
import { run as defaultRun, RunState, type Agent, type AgentInputItem, type NonStreamRunOptions, type RunResult } from '@openai/agents';
import { createDriver, type WaitingCall } from './drive-run.ts';
import { decodeSavedRun, type SavedRun } from './saved-run.ts';
import { toAgentsTool, type GateTool } from './to-agents-tool.ts';

/** The part of an SDK `Runner` the gate uses: a configured `new Runner({...})`, or the SDK's `run`. */
export interface AgentsRunner {
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run<TAgent extends Agent<any, any>, TContext = undefined>(agent: TAgent, input: string | AgentInputItem[] | RunState<TContext, TAgent>, options?: NonStreamRunOptions<TContext, TAgent>): Promise<RunResult<TContext, TAgent>>;
}

/** Options of {@link createApprovalGate}: the tool runner's, and what the gate adds. */
export interface ApprovalGateOptions<C> extends ToolRunnerOptions<C> {
  /**
   * How the gate waits for the person, between interruption and resumption: `'poll'`, `{ ping }`,
   * or `'none'` (ask, keep the run, and return at once; `resumePending` continues it later).
   */
  wait: ToolRunnerOptions<C>['wait'];
  /** The SDK runner to run agents with (its model provider, tracing…); the SDK's default `run` when absent. */
  agentsRunner?: AgentsRunner;
  /**
   * Told of every call that starts to wait for the person, once its request exists and the run
   * is saved with it: show the person the `binding_code`, tell them to look at their phone.
   */
  onWaiting?: (call: WaitingCall) => void | Promise<void>;
}

/** One run `resumePending` took up again. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type ResumedRun<C, TAgent extends Agent<any, any>> = { run_id: string } & ({ result: RunResult<C, TAgent> } | { error: unknown });

/** What {@link createApprovalGate} makes. */
export interface ApprovalGate<C> {
  /** The tools for `new Agent({ tools })`: every tool of the options, the gated ones with `needsApproval`. */
  readonly tools: GateTool<C>[];
  /** The tool runner the tools' `execute` goes through (its `pending` store is the gate's). */
  readonly runner: ToolRunner<C>;
  /**
   * Runs the agent like the SDK's `run`, and settles every interruption of a gated tool through
   * Countersign: asks the person for that exact call, keeps the paused run with the pending
   * approval, waits, then approves the interruption (approved) or rejects it with the reason
   * (denied, expired, refused) and resumes. Calls decided first resume first; the others keep
   * waiting. Interruptions of other tools are left to the caller, in the result.
   *
   * @param input - a string, input items, or a `RunState` (its own pending calls are settled first).
   * @returns the run's result: finished, or still interrupted when a wait timed out
   *   (`waitTimeoutSeconds`, `wait: 'none'`) or only other tools' interruptions are left.
   * @throws what the SDK's `run` throws; a 5xx or network error of the server while waiting, or
   *   inside a tool as the SDK's `ToolCallError` with it as `error`: it is unknown whether the
   *   approval was spent, which is not a "no" to tell the model. The run is kept with its pending
   *   approvals, token included, and `resumePending` continues it.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  run<TAgent extends Agent<any, any>>(agent: TAgent, input: string | AgentInputItem[] | RunState<C, TAgent>, options?: NonStreamRunOptions<C, TAgent>): Promise<RunResult<C, TAgent>>;
  /**
   * Continues every run of `agent` that waits for approvals in the store (by its `name`), as a
   * new process does after a restart: rebuilds each run's newest `RunState` (`fromString`) and
   * goes on as {@link ApprovalGate.run}. A call approved meanwhile runs once; an approval whose
   * token this store already holds is not asked for again. One process should resume a run.
   *
   * @returns one entry per run: its result, or the error that stopped it (a state that no longer
   *   matches the agent, a server failure).
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  resumePending<TAgent extends Agent<any, any>>(agent: TAgent, options?: NonStreamRunOptions<C, TAgent>): Promise<ResumedRun<C, TAgent>[]>;
}

/**
 * Gates an OpenAI Agents SDK agent's tools on Countersign: the tools' `needsApproval`
 * interruptions are approved by the person on their phone, never by the app, and a gated tool's
 * `execute` redeems that approval against its exact arguments before it acts.
 *
 * Takes the tool runner's options rather than a runner: the gate waits for decisions between an
 * interruption and the resumption through that runner's `authorize` (its client, strategy, store
 * and locks), and the tools' `execute` spends the approvals through its `call`.
 *
 * @throws TypeError for two tools of one name.
 * @see docs/design.md guarantees 1, 3, 7, 8; CIBA Core 1.0 §7, §10
 * @example
 * ```ts
 * const gate = createApprovalGate({ client, tools: [lookupOrder, refundOrder], wait: 'poll', pending: createRedisPendingApprovals(redis) });
 * const agent = new Agent({ name: 'Support', instructions: 'Refund damaged orders.', tools: gate.tools });
 * const result = await gate.run(agent, 'Order 1042 arrived broken: refund the 490.00 EUR.');
 * // after a restart: await gate.resumePending(agent);
 * ```
 */
export function createApprovalGate<C = undefined>(options: ApprovalGateOptions<C>): ApprovalGate<C> {
  const runner = createToolRunner(options);
  const tools = options.tools.map((tool) => toAgentsTool(tool, runner));
  const agentsRunner = options.agentsRunner ?? { run: defaultRun };
  const drive = createDriver<C>({ tools: options.tools, runner, agentsRunner, ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}) });

  return {
    tools,
    runner,
    run: (agent, input, runOptions) => drive(agent, input, runOptions, undefined),
    async resumePending(agent, runOptions) {
      const runs = new Map<string, SavedRun>();
      for (const record of await runner.pending.list()) {
        const saved = decodeSavedRun(record.run_state);
        if (!saved || saved.agent !== agent.name) continue;
        const known = runs.get(saved.run_id);
        if (!known || known.seq < saved.seq) runs.set(saved.run_id, saved);
      }
      return Promise.all(
        [...runs.values()].map(async (saved) => {
          try {
            const state = await RunState.fromString<C, typeof agent>(agent, saved.state);
            return { run_id: saved.run_id, result: await drive(agent, state, runOptions, saved) };
          } catch (error) {
            return { run_id: saved.run_id, error };
          }
        }),
      );
    },
  };
}
