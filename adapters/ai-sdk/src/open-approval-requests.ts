import type { ModelMessage } from 'ai';

/** One `tool-approval-request` of a message history that no later message answered. */
export interface OpenApprovalRequest {
  approvalId: string;
  toolCallId: string;
  toolName: string;
  /** The call's input, as the tool-call part of the history holds it. */
  input: unknown;
}

/**
 * The approval requests of `messages` still waiting for an answer: requests the SDK asked a
 * person for (not its automatic approvals and denials) with neither a `tool-approval-response`
 * nor a tool result for their call in the history, in the order they were made. A request whose
 * tool call is not in the history is skipped: the SDK refuses such a history anyway.
 */
export function openApprovalRequests(messages: readonly ModelMessage[]): OpenApprovalRequest[] {
  // Keyed by ids from a client-supplied history: no prototype, so `__proto__` is just an id.
  const calls = new Map<string, { toolName: string; input: unknown }>();
  const requests: { approvalId: string; toolCallId: string }[] = [];
  const answeredApprovals = new Set<string>();
  const answeredCalls = new Set<string>();
  for (const message of messages) {
    if (typeof message.content === 'string') continue;
    if (message.role === 'assistant') {
      for (const part of message.content) {
        if (part.type === 'tool-call') calls.set(part.toolCallId, { toolName: part.toolName, input: part.input });
        else if (part.type === 'tool-approval-request' && part.isAutomatic !== true) requests.push({ approvalId: part.approvalId, toolCallId: part.toolCallId });
        else if (part.type === 'tool-result') answeredCalls.add(part.toolCallId);
      }
    } else if (message.role === 'tool') {
      for (const part of message.content) {
        if (part.type === 'tool-approval-response') answeredApprovals.add(part.approvalId);
        else if (part.type === 'tool-result') answeredCalls.add(part.toolCallId);
      }
    }
  }
  const open: OpenApprovalRequest[] = [];
  for (const { approvalId, toolCallId } of requests) {
    const call = calls.get(toolCallId);
    if (!call || answeredApprovals.has(approvalId) || answeredCalls.has(toolCallId)) continue;
    open.push({ approvalId, toolCallId, ...call });
  }
  return open;
}
