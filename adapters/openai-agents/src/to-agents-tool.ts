import { CountersignError, isGatedTool, type AnyTool, type ErrorCode, type ToolCallResult, type ToolRunner, type z } from '@countersign/agent';
import { tool as agentsTool, type FunctionTool } from '@openai/agents';

/** An SDK function tool made from a Countersign tool: what the model sees a `ToolCallResult` of. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type GateTool<C> = FunctionTool<C, any, ToolCallResult>;

/**
 * One Countersign tool as an OpenAI Agents SDK function tool: the same name, description and zod
 * schema, `needsApproval` exactly when the tool is gated, and an `execute` that goes through the
 * tool runner.
 *
 * A gated tool's `execute` runs only when the runner's store holds an approval token for this
 * exact call (the tool and the hash of these arguments, `runner.callKey`), which only the gate
 * puts there once the person approved; the runner then redeems it against the action rebuilt
 * from these arguments (docs/design.md guarantee 3) before the tool acts. An interruption the app
 * approves by itself (`state.approve` with no Countersign decision), or a run state whose
 * arguments were changed after the approval, finds no token and is refused: nothing runs and
 * nothing is asked.
 *
 * @returns the tool; its `execute` answers the runner's {@link ToolCallResult} (`executed` with the
 *   result and the reported outcome, `refused` with `invalid_grant` when no approval was asked for
 *   this call, `authorization_pending` when the person has not approved it yet…).
 * @throws (from `execute`, so out of the SDK's run) a 5xx or network error of the server: then it
 *   is unknown whether the approval was spent, and that is not a "no" to tell the model.
 */
export function toAgentsTool<C>(tool: AnyTool<C>, runner: ToolRunner<C>): GateTool<C> {
  const gated = isGatedTool(tool);
  return agentsTool({
    name: tool.name,
    description: tool.description,
    // The SDK converts the zod object schema to the model's strict JSON Schema and validates with it.
    parameters: tool.parameters as z.ZodObject,
    needsApproval: gated,
    // Propagate instead of telling the model a generic error: see @throws.
    errorFunction: null,
    async execute(input, runContext, details): Promise<ToolCallResult> {
      // The model's own arguments, for the runner's schema to validate once; the SDK's parsed
      // copy when a caller invokes the tool without a tool call.
      const args: unknown = details?.toolCall ? parseJson(details.toolCall.arguments, input) : input;
      const context = runContext?.context as C;
      if (gated) {
        const missing = await withoutApproval(runner, tool.name, args);
        if (missing) return missing;
      }
      return runner.call(tool.name, args, context, details?.signal ? { signal: details.signal } : {});
    },
  }) as GateTool<C>;
}

/** The refusal for a gated call whose approval token the store does not hold; undefined when it does. */
async function withoutApproval<C>(runner: ToolRunner<C>, name: string, args: unknown): Promise<ToolCallResult | undefined> {
  let call_key: string;
  try {
    call_key = await runner.callKey(name, args);
  } catch (error) {
    if (error instanceof CountersignError && error.status < 500) return refusal(name, error.code, error.message);
    throw error;
  }
  const record = await runner.pending.get(call_key);
  if (!record) return refusal(name, 'invalid_grant', `${name}: no approval was asked for this exact call through Countersign; it runs only once the person approved it`);
  if (record.access_token === undefined) {
    return refusal(name, 'authorization_pending', `${name}: the person has not approved this call yet`, record.auth_req_id);
  }
  return undefined;
}

/** `text` as JSON; `fallback` when it is not (the SDK validated it, so that is not expected). */
function parseJson(text: string, fallback: unknown): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return fallback;
  }
}

function refusal(tool: string, error: ErrorCode, error_description: string, auth_req_id?: string): ToolCallResult {
  return { status: 'refused', tool, error, error_description, ...(auth_req_id ? { auth_req_id } : {}) };
}
