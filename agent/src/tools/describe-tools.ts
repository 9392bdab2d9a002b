import { z } from 'zod';
import { isGatedTool } from './define-tool.ts';
import type { AnyTool, ToolDescription } from './tool-types.ts';

/**
 * How a tool is shown to a model: name, description, whether it needs approval, and its
 * arguments as JSON Schema (the input side of the zod schema: what the model must send).
 */
export function describeTool(tool: AnyTool): ToolDescription {
  return {
    name: tool.name,
    description: tool.description,
    requiresApproval: isGatedTool(tool),
    parameters: z.toJSONSchema(tool.parameters, { io: 'input', unrepresentable: 'any' }) as Record<string, unknown>,
  };
}

/**
 * Every tool of `tools` marked as needing approval, in the order given: what an operator reviews
 * and a test walks to prove each one is gated.
 */
export function listGatedTools(tools: readonly AnyTool[]): ToolDescription[] {
  return tools.filter(isGatedTool).map(describeTool);
}
