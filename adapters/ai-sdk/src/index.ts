/**
 * `@countersign/ai-sdk`: Countersign for the Vercel AI SDK (`ai` 7). A gated tool's `execute`
 * goes through the Countersign tool runner, so it runs only after one person approved its exact
 * arguments on their phone and the approval was redeemed against them; the SDK's own approval flow
 * (`toolApproval`, `tool-approval-request`, `tool-approval-response`) asks Countersign and shows the
 * wait, and an approval response in the message history, forged or not, never runs a tool by itself.
 */
export { countersign, type Countersign, type CountersignSettings, type CountersignToolApproval } from './countersign.ts';
export { toAiSdkTools, type CountersignToolSet } from './to-ai-sdk-tools.ts';
export { createToolApproval, type ApprovalHookInput } from './tool-approval.ts';
export { waitForDecisions } from './wait-for-decisions.ts';
export { openApprovalRequests, type OpenApprovalRequest } from './open-approval-requests.ts';
