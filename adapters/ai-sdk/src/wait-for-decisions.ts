import type { Authorization, CallOptions, ToolRunner } from '@countersign/agent';
import type { ModelMessage, ToolApprovalResponse, ToolModelMessage } from 'ai';
import { openApprovalRequests } from './open-approval-requests.ts';

/**
 * Waits for the person's decision on every open approval request of a gated tool in `messages`
 * (see `openApprovalRequests`), all at once, and answers each with the `tool-approval-response`
 * that continues the run. It waits through `runner.authorize`, by the runner's strategy (polling, or
 * for the ping) and under its locks, and the approval token stays in the runner's store for the
 * tool's `execute`, which alone spends it.
 *
 * `approved` is true only when Countersign approved. Denied, expired and refused calls are answered
 * `approved: false` with the reason, and so is a call still undecided when the runner's
 * `waitTimeoutSeconds` ran out: the approval stays pending, and the same call made again later
 * resumes it. The response is a convenience, not a credential: `execute` redeems either way.
 *
 * @returns the tool message to append before the next `generateText` / `streamText` call, or
 *   undefined when no gated request is open.
 * @throws the signal's reason when `signal` aborts; a 5xx or network error of the server.
 */
export async function waitForDecisions<C>(runner: ToolRunner<C>, messages: readonly ModelMessage[], context: C, options: CallOptions = {}): Promise<ToolModelMessage | undefined> {
  const gated = new Set(runner.listGatedTools().map((tool) => tool.name));
  const open = openApprovalRequests(messages).filter((request) => gated.has(request.toolName));
  if (open.length === 0) return undefined;
  const responses = await Promise.all(
    open.map(async ({ approvalId, toolName, input }): Promise<ToolApprovalResponse> => {
      const answer = await runner.authorize(toolName, input, context, options.signal ? { signal: options.signal } : {});
      return { type: 'tool-approval-response', approvalId, ...decision(answer) };
    }),
  );
  // An aborted wait decided nothing: the caller asked to stop, not to be told "not approved".
  options.signal?.throwIfAborted();
  return { role: 'tool', content: responses };
}

function decision(answer: Authorization): { approved: boolean; reason: string } {
  switch (answer.status) {
    case 'approved':
      return { approved: true, reason: 'Approved in Countersign.' };
    case 'denied':
      return { approved: false, reason: 'The approver denied this call in Countersign.' };
    case 'expired':
      return { approved: false, reason: 'Nobody approved this call in Countersign in time.' };
    case 'approval_pending':
      return { approved: false, reason: 'No decision in Countersign yet; the same call made again later resumes the same approval.' };
    case 'refused':
      return { approved: false, reason: `Countersign refused this call: ${answer.error}.` };
  }
}
