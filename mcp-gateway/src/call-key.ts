import { detailsHashSync } from '@countersign/shared/node';

/**
 * The key of one gated call: base64url(SHA-256(JCS({server, tool, arguments}))), 43 characters.
 * The same tool with the same arguments (in any key order: RFC 8785 sorts them) has the same key,
 * so a call made again finds its pending approval or its recorded result; any changed argument
 * is another key and so another approval.
 *
 * @see RFC 8785 (JCS)
 */
export function callKey(server: string, tool: string, args: Record<string, unknown>): string {
  return detailsHashSync({ server, tool, arguments: args });
}

/**
 * The `transaction_id` of a call's `tool_call` action: `mcp_` and its {@link callKey}. Derived, not
 * random, so that a gateway which lost its own record (memory store, restart) asks again with the
 * same id and Countersign's idempotency answers the same `auth_req_id` instead of pushing anew.
 *
 * @see docs/design.md "Actions" (transaction_id)
 */
export function transactionId(key: string): string {
  return `mcp_${key}`;
}
