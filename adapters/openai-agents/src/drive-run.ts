import { callKey, CountersignError, isGatedTool, parseArguments, type AnyGatedTool, type AnyTool, type Authorization, type ToolRunner } from '@countersign/agent';
import { RunState, type Agent, type AgentInputItem, type NonStreamRunOptions, type RunResult, type RunToolApprovalItem } from '@openai/agents';
import { randomUUID } from 'node:crypto';
import type { AgentsRunner } from './create-approval-gate.ts';
import { firstDecided } from './first-decided.ts';
import { encodeSavedRun, type SavedRun } from './saved-run.ts';

/** A gated call that waits for the person, as `onWaiting` is told of it. */
export interface WaitingCall {
  /** The run it belongs to (see `resumePending`). */
  run_id: string;
  tool: string;
  /** The arguments, as the tool's schema validated them: what the person is asked to approve. */
  arguments: unknown;
  auth_req_id: string;
  /** Number matching: the two digits to show the person, who picks them on the phone. */
  binding_code?: string;
  /** Seconds until the request expires. */
  expires_in: number;
}

/** What {@link createDriver} needs. */
export interface DriverOptions<C> {
  tools: readonly AnyTool<C>[];
  /** The gate's tool runner: it asks, waits and keeps the token (`authorize`); its tools' `execute` spends it. */
  runner: ToolRunner<C>;
  agentsRunner: AgentsRunner;
  onWaiting?: (call: WaitingCall) => void | Promise<void>;
}

/** One interruption of a gated tool, with its validated arguments. */
interface GatedCall<C> {
  item: RunToolApprovalItem;
  tool: AnyGatedTool<C>;
  /** The model's arguments, as the interruption holds them: the runner validates them once. */
  raw: unknown;
  /** The same, validated by the tool's schema. */
  args: unknown;
  /** The key the call's approval waits under (`callKey`). */
  call_key: string;
}

/**
 * The gate's run loop: run, and while the run is interrupted by gated calls, settle them through
 * Countersign, one decision at a time, resuming after each. See `ApprovalGate.run`.
 */
export function createDriver<C>({ tools, runner, agentsRunner, onWaiting }: DriverOptions<C>) {
  const gated = new Map<string, AnyGatedTool<C>>();
  for (const tool of tools) if (isGatedTool(tool)) gated.set(tool.name, tool);

  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  return async function drive<TAgent extends Agent<any, any>>(agent: TAgent, input: string | AgentInputItem[] | RunState<C, TAgent>, options: NonStreamRunOptions<C, TAgent> | undefined, saved: SavedRun | undefined): Promise<RunResult<C, TAgent>> {
    const run_id = saved?.run_id ?? randomUUID();
    let seq = saved?.seq ?? 0;
    // The run context lives in the state from the first run on; handing it in again would replace it.
    const { context: _context, ...resumeOptions } = options ?? {};
    const resume = (state: RunState<C, TAgent>) => agentsRunner.run(agent, state, resumeOptions as NonStreamRunOptions<C, TAgent>);
    const signal = options?.signal;
    /** One wait per call, kept across resumptions: a decision that comes while another call runs is not lost. */
    const waits = new Map<string, Promise<Authorization>>();

    let result: RunResult<C, TAgent> | undefined = input instanceof RunState ? undefined : await agentsRunner.run(agent, input, options);
    let state: RunState<C, TAgent> = input instanceof RunState ? input : result!.state;
    for (;;) {
      const { calls, invalid } = await gatedCalls(state);
      if (invalid.length > 0) {
        // Arguments the tool's schema refuses: the model is told why; nobody is asked.
        for (const { item, refusal } of invalid) state.reject(item, { message: JSON.stringify(refusal) });
        result = await resume(state);
        state = result.state;
        continue;
      }
      if (calls.length === 0) return result ?? (await resume(state));
      const run_state = encodeSavedRun({ run_id, agent: agent.name, seq: ++seq, state: state.toString() });
      const context = state._context.context;
      await Promise.all(
        calls.map(async (call) => {
          if (waits.has(call.call_key)) return void (await runner.saveRunState(call.call_key, run_state));
          const wait = authorize(call, context, run_state, run_id, signal);
          // Handled here too: when another call fails first, this one's rejection is not left unhandled.
          wait.catch(() => undefined);
          waits.set(call.call_key, wait);
        }),
      );
      const decided = await firstDecided(calls.map((call) => waits.get(call.call_key)!.then((authorization) => ({ call, authorization }))));
      // Every call still waits (the wait timed out, or the strategy is 'none'): the run stays saved.
      if (!decided) return result ?? (await resume(state));
      waits.delete(decided.call.call_key);
      if (decided.authorization.status === 'approved') state.approve(decided.call.item);
      else state.reject(decided.call.item, { message: JSON.stringify(decided.authorization) });
      result = await resume(state);
      state = result.state;
    }
  };

  /**
   * Asks for (or finds) the call's approval through the runner, keeps the run on it and tells
   * `onWaiting` before the wait, then waits for the decision. Nothing runs here.
   *
   * @throws the signal's reason when it aborts (the approval stays pending, the run saved).
   */
  async function authorize(call: GatedCall<C>, context: C, run_state: string, run_id: string, signal: AbortSignal | undefined): Promise<Authorization> {
    const name = call.tool.name;
    const answer = await runner.authorize(name, call.raw, context, {
      ...(signal ? { signal } : {}),
      onRequest: async ({ call_key, auth_req_id, binding_code, expires_in, approved }) => {
        await runner.saveRunState(call_key, run_state);
        if (!approved && onWaiting) await onWaiting({ run_id, tool: name, arguments: call.args, auth_req_id, expires_in, ...(binding_code === undefined ? {} : { binding_code }) });
      },
    });
    signal?.throwIfAborted();
    return answer;
  }

  /** The state's interruptions of gated tools, split into calls to settle and calls refused outright. */
  async function gatedCalls(state: RunState<C, Agent<any, any>>) {
    const calls: GatedCall<C>[] = [];
    const invalid: { item: RunToolApprovalItem; refusal: Authorization }[] = [];
    for (const item of state.getInterruptions()) {
      const tool = item.name === undefined ? undefined : gated.get(item.name);
      if (!tool) continue;
      try {
        const raw: unknown = JSON.parse(item.arguments ?? '');
        const args = parseArguments(tool, raw);
        calls.push({ item, tool, raw, args, call_key: await callKey(tool.name, args) });
      } catch (error) {
        const refusal = error instanceof CountersignError ? error : new CountersignError('invalid_request', `${tool.name}: the arguments are not JSON`);
        invalid.push({ item, refusal: { status: 'refused', tool: tool.name, error: refusal.code, error_description: refusal.message } });
      }
    }
    return { calls, invalid };
  }
}
