import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { GATEWAY_ANSWER_SCHEMA } from './results.ts';

/** The part of the config that decides which tools are gated. */
export interface GatePolicy {
  gate: readonly string[];
  allow: readonly string[];
}

/**
 * True when a call of `tool` needs the person's approval: the config's `gate` names it, or the
 * upstream annotates it `destructiveHint: true` and `allow` does not name it. A tool the gateway
 * has not seen listed is judged by `gate` alone, with no annotations.
 *
 * @see docs/design.md "The MCP gateway"; MCP 2025-11-25 "Tool annotations"
 */
export function isGated(name: string, tool: Pick<Tool, 'annotations'> | undefined, policy: GatePolicy): boolean {
  if (policy.gate.includes(name)) return true;
  return tool?.annotations?.destructiveHint === true && !policy.allow.includes(name);
}

const PHONE_NOTE = 'Countersign: before this tool runs, the person is asked to approve this exact call on their phone with a passkey; until they do, the call answers approval_pending and nothing runs.';

/**
 * How the gateway lists an upstream tool: unchanged when not gated. A gated one keeps its name,
 * input schema and annotations; its description says it asks the person on their phone first, and
 * its `outputSchema`, if any, also admits the gateway's own answers ({@link GATEWAY_ANSWER_SCHEMA}),
 * and it may be called as a task (`execution.taskSupport: optional`).
 */
export function listedTool(tool: Tool, policy: GatePolicy): Tool {
  if (!isGated(tool.name, tool, policy)) return tool;
  const description = tool.description ? `${tool.description}\n\n${PHONE_NOTE}` : PHONE_NOTE;
  const outputSchema = tool.outputSchema && ({ type: 'object', anyOf: [tool.outputSchema, GATEWAY_ANSWER_SCHEMA] } as Tool['outputSchema']);
  // Tasks are optional: a client that has them gets a task that stays `working` until the decision.
  return { ...tool, description, ...(outputSchema ? { outputSchema } : {}), execution: { ...tool.execution, taskSupport: 'optional' } };
}
