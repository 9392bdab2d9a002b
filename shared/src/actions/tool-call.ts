import { z } from 'zod';
import { displayText, identifier } from '../schemas/text.ts';
import { precondition } from './precondition.ts';
import { toolArguments } from './tool-arguments.ts';

/**
 * An MCP tool name as MCP 2025-11-25 recommends it: 1 to 128 of ASCII letters, digits, `_`, `-`
 * and `.`. Exact and case-sensitive: it is matched by the policy and shown to the person as it is.
 * @see MCP 2025-11-25 server/tools "Tool names"
 */
export const toolName = z
  .string()
  .regex(/^[A-Za-z0-9_.-]+$/, 'must be 1 to 128 of A-Z, a-z, 0-9, _, - and . (MCP tool names)')
  .min(1)
  .max(128);

/**
 * The MCP tool annotations the gateway saw in the upstream's `tools/list` for this tool. Hints an
 * upstream states about itself: the policy may raise a tier on them, and the person sees them, but
 * a hint can never lower a tier below what the type and the tool's name ask for (an upstream that
 * claims `readOnlyHint` for a destructive tool gains nothing).
 * `title` is display text (canonicalised like every text a person reads: send it through
 * `toDisplayText` first if the upstream's may hold invisible characters).
 * @see MCP 2025-11-25 schema `ToolAnnotations`
 */
export const toolAnnotations = z.strictObject({
  title: displayText(200).optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});

/** Validated tool annotations. */
export type ToolAnnotations = z.infer<typeof toolAnnotations>;

/**
 * The `tool_call` authorization details type (docs/design.md "Actions", fixed): one call of `tool`
 * on the MCP server `server` with exactly `arguments`, as the MCP gateway forwards it. Unknown
 * members are refused, not dropped. `arguments` is stored, hashed and compared exactly as sent (see
 * `toolArguments`: any JSON object, at most 8 KB as JCS).
 *
 * There is deliberately no `purpose`: the gateway has no source for one but the model's own text,
 * which is what a prompt injection writes, and what the person must judge is the call itself; the
 * short `binding_message` of the request ties it to the client's screen. (Fields may be added
 * later, never removed, so leaving it out is the choice that can still change.)
 *
 * @see RFC 9396 §2; MCP 2025-11-25 `tools/call`
 */
export const toolCallDetails = z.strictObject({
  type: z.literal('tool_call'),
  /** The client's idempotency key for this action (the gateway's `mcp_…` id of the pending call). */
  transaction_id: identifier(64),
  /** The upstream MCP server's name, as the gateway's config names it (`upstream.name`). */
  server: identifier(64),
  tool: toolName,
  arguments: toolArguments,
  annotations: toolAnnotations.optional(),
  /** Optional: run only while this record is at this version; checked at `/redeem` (`stale_record`). */
  precondition: precondition.optional(),
});

/** A validated `tool_call` action. */
export type ToolCallDetails = z.infer<typeof toolCallDetails>;
