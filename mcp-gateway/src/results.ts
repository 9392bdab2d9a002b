import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** The gateway's own answers to a gated call, in `structuredContent` (docs/design.md "The MCP gateway"). */
/** Refusals that say the approval was used before, by this gateway or one that forgot it. */
const MAY_HAVE_RUN: ReadonlySet<string> = new Set(['already_redeemed', 'invalid_grant']);

export type GatewayAnswer = { status: 'approval_pending'; auth_req_id: string; binding_message: string; approval_url: string; expires_in: number } | { status: 'denied'; auth_req_id: string } | { status: 'expired'; auth_req_id: string } | { status: 'refused'; error: string; auth_req_id?: string };

/**
 * The JSON Schema of {@link GatewayAnswer}. A gated tool that declares an `outputSchema` is listed
 * with `anyOf` its own and this one: an MCP client validates `structuredContent` against the
 * tool's schema even on `isError` (the SDK's `Client.callTool` does), and would otherwise reject
 * every answer the gateway gives in the upstream's place.
 */
export const GATEWAY_ANSWER_SCHEMA = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['approval_pending', 'denied', 'expired', 'refused'] },
    auth_req_id: { type: 'string' },
    binding_message: { type: 'string' },
    approval_url: { type: 'string' },
    expires_in: { type: 'number' },
    error: { type: 'string' },
  },
  required: ['status'],
} as const;

const TEXT: Record<GatewayAnswer['status'], (answer: any) => string> = {
  approval_pending: (a) => `Waiting for the person to approve this call on their phone ("${a.binding_message}", ${a.approval_url}). Nothing has run yet. Call the same tool with the same arguments again to resume waiting; it will not ask twice.`,
  denied: () => 'The person denied this call on their phone. Nothing ran. Do not retry it unless they ask you to.',
  expired: () => 'Nobody decided on this call in time; the approval request expired. Nothing ran.',
  // A spent approval (`already_redeemed`) or a token issued before (`invalid_grant`: a gateway
  // restarted without its call records) may mean the call ran already; nothing ran now.
  refused: (a) => (MAY_HAVE_RUN.has(a.error) ? `Countersign refused this call (${a.error}): its approval was already used, so it may have run before. Nothing ran now; check before asking again.` : `Countersign refused this call (${a.error}). Nothing ran.`),
};

/**
 * A `tools/call` result that is not the upstream's: `isError: true`, the answer in
 * `structuredContent` and a sentence for the model in `content`.
 */
export function gatewayResult(answer: GatewayAnswer): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: TEXT[answer.status](answer) }], structuredContent: { ...answer } };
}
