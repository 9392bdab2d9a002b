import { createToolRunner, type CallOptions, type ToolRunner, type ToolRunnerOptions } from '@countersign/agent';
import type { ModelMessage, ToolApprovalStatus, ToolModelMessage } from 'ai';
import { toAiSdkTools, type CountersignToolSet } from './to-ai-sdk-tools.ts';
import { createToolApproval, type ApprovalHookInput } from './tool-approval.ts';
import { waitForDecisions } from './wait-for-decisions.ts';

/** The AI SDK's `toolApproval` for Countersign's gated tools (a generic approval function). */
export type CountersignToolApproval = (options: ApprovalHookInput) => Promise<ToolApprovalStatus>;

/** What `generateText`, `streamText` and `ToolLoopAgent` take from Countersign for one run. */
export interface CountersignSettings {
  tools: CountersignToolSet;
  toolApproval: CountersignToolApproval;
}

/** Countersign for the Vercel AI SDK, made by {@link countersign}. Create it once; it holds the pending approvals. */
export interface Countersign<C> {
  /** The runner behind every tool's `execute`, the approval hook and the wait for decisions; only `execute` redeems and runs. */
  readonly runner: ToolRunner<C>;
  /**
   * The runner's tools as AI SDK tools (see `toAiSdkTools`). Alone, a gated call waits inside
   * `execute` by the runner's strategy and the run goes on once the person decided.
   */
  tools(context?: C): CountersignToolSet;
  /**
   * The `toolApproval` hook (see `createToolApproval`): a gated call is asked for in Countersign
   * at once and the run stops with a `tool-approval-request` until the person decided.
   */
  toolApproval(context?: C): CountersignToolApproval;
  /** Both, to spread into `generateText({ model, ...gate.settings(session), messages })`. */
  settings(context?: C): CountersignSettings;
  /**
   * Waits for the decisions on the open approval requests in `messages` (see `waitForDecisions`)
   * and answers them: the tool message to append before continuing the run, or undefined when
   * none is open.
   */
  waitForDecisions(messages: readonly ModelMessage[], context?: C, options?: CallOptions): Promise<ToolModelMessage | undefined>;
}

/**
 * Countersign for a Vercel AI SDK (`ai` 7) app: the tools a runner would run, as AI SDK tools whose
 * `execute` goes through the runner, and the SDK's approval flow wired to Countersign. Takes what
 * `createToolRunner` takes; give a persistent `pending` store (Redis) when runs continue in another
 * process.
 *
 * One runner does it all, on one store and one set of locks: the approval hook asks through
 * `runner.authorize` without waiting, {@link Countersign.waitForDecisions} waits through it by
 * `wait`, and both leave the token in the store, unspent; only `execute` (`runner.call`) spends
 * the approval, on exactly its own arguments.
 *
 * @throws TypeError for two tools of one name.
 * @see docs/design.md guarantees 1, 3, 7; CIBA Core 1.0 §7, §10
 * @example
 * ```ts
 * const gate = countersign({ client, tools: [lookupOrder, refundOrder], wait: 'poll', waitTimeoutSeconds: 120 });
 * const result = await generateText({ model, ...gate.settings(session), messages });
 * messages.push(...result.responseMessages);
 * const answers = await gate.waitForDecisions(messages, session); // the person decides on their phone
 * if (answers) messages.push(answers); // then generateText again: the approved refund runs, once
 * ```
 */
export function countersign<C = undefined>(options: ToolRunnerOptions<C>): Countersign<C> {
  const runner = createToolRunner<C>(options);
  const tools = (context?: C) => toAiSdkTools(runner, context as C);
  const toolApproval = (context?: C) => createToolApproval(runner, context as C);
  return {
    runner,
    tools,
    toolApproval,
    settings: (context?: C) => ({ tools: tools(context), toolApproval: toolApproval(context) }),
    waitForDecisions: (messages, context, callOptions) => waitForDecisions(runner, messages, context as C, callOptions),
  };
}
