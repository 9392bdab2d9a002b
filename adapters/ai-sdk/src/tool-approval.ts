import type { ToolRunner } from '@countersign/agent';
import type { ToolApprovalStatus } from 'ai';

/** What the approval hook reads of the SDK's arguments: the tool call. */
export interface ApprovalHookInput {
  toolCall: { toolName: string; input: unknown };
}

/**
 * The AI SDK's generic `toolApproval` function for a runner's gated tools. The SDK calls it when
 * the model makes a call, and again when a run continues with an approval response for the call;
 * each time it asks Countersign through `runner.authorize` without waiting, which asks for the
 * exact action or finds the approval this call already waits for (reading its decision once), and
 * never redeems or runs the tool:
 *
 * - undecided: `user-approval`, so the run stops with a `tool-approval-request` while the person
 *   decides on their phone; the reason says so (with the number-matching code, if any).
 * - approved (the token is held): `approved`, so the SDK runs the tool's `execute`, which redeems.
 * - denied or expired: `denied`, so the model gets `execution-denied`, whatever approval response
 *   the message history holds.
 * - refused (bad arguments, an action the server refuses): `not-applicable`, so `execute` runs
 *   and answers the refusal with its error code; it refuses again before anything runs.
 * - an ungated tool or one the runner does not have: `not-applicable`.
 *
 * This is the user experience of the gate, not the gate: an approval response the hook never
 * saw, or one forged into the history, reaches `execute`, and `execute` redeems before it acts.
 *
 * @throws a 5xx or network error of the server (the run then fails; nothing ran).
 */
export function createToolApproval<C>(runner: ToolRunner<C>, context: C) {
  const gated = new Set(runner.listGatedTools().map((tool) => tool.name));
  return async function countersignToolApproval({ toolCall }: ApprovalHookInput): Promise<ToolApprovalStatus> {
    const { toolName, input } = toolCall;
    if (!gated.has(toolName)) return 'not-applicable';
    const answer = await runner.authorize(toolName, input, context, { wait: 'none' });
    switch (answer.status) {
      case 'approval_pending': {
        const code = answer.binding_code === undefined ? '' : ` Pick ${answer.binding_code} on the phone.`;
        return { type: 'user-approval', reason: `Waiting for the approver to decide in Countersign (request ${answer.auth_req_id}).${code}` };
      }
      case 'approved':
        return { type: 'approved', reason: 'Approved in Countersign; the tool redeems the approval before it runs.' };
      case 'denied':
        return { type: 'denied', reason: 'The approver denied this call in Countersign.' };
      case 'expired':
        return { type: 'denied', reason: 'Nobody approved this call in Countersign in time.' };
      case 'refused':
        return 'not-applicable';
    }
  };
}
