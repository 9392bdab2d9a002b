import type { ToolCallResult, ToolRunner } from '@countersign/agent';
import { jsonSchema, tool, type JSONSchema7, type Tool } from 'ai';

/** The runner's tools as AI SDK tools: each answers the runner's {@link ToolCallResult}. */
export type CountersignToolSet = Record<string, Tool<unknown, ToolCallResult>>;

/**
 * Every tool of `runner` as an AI SDK tool whose `execute` is `runner.call`. A gated tool's
 * `execute` therefore asks Countersign for the exact action (or finds the approval this call
 * already waits for), waits by the runner's strategy, redeems the approval against the action
 * rebuilt from these arguments and only then runs the tool's own code. Whatever the message history
 * says about approvals, no other path leads to that code.
 *
 * The input schema is the runner's JSON Schema with no validation of the SDK's own: the runner
 * parses the model's arguments once, with the tool's zod schema, and refuses what does not parse
 * (`refused`, `invalid_request`), so the arguments hashed are the ones executed.
 *
 * @param context - handed to every tool hook and `execute` (the session, the tenant…).
 * @returns tools keyed by name; their output is the runner's result for the model to read:
 *   `executed` (with `result` and the reported `outcome`), `approval_pending`, `denied`,
 *   `expired`, `refused` or `failed`.
 */
export function toAiSdkTools<C>(runner: ToolRunner<C>, context: C): CountersignToolSet {
  // fromEntries defines own properties, so even a tool named `__proto__` stays a tool.
  return Object.fromEntries(
    runner.listTools().map((description) => [
      description.name,
      tool({
        description: description.description,
        inputSchema: jsonSchema<unknown>(description.parameters as JSONSchema7),
        execute: (input, { abortSignal }) => runner.call(description.name, input, context, abortSignal ? { signal: abortSignal } : {}),
      }),
    ]),
  );
}
