/**
 * `@countersign/openai-agents`: Countersign for the OpenAI Agents SDK. A tool's `needsApproval`
 * interruptions are approved by one person on their phone (OpenID Connect CIBA), the paused run is
 * kept with the pending approval so it resumes after a restart, and a gated tool's `execute`
 * redeems the approval against its exact arguments before it acts.
 */
export { createApprovalGate, type AgentsRunner, type ApprovalGate, type ApprovalGateOptions, type ResumedRun } from './create-approval-gate.ts';
export type { WaitingCall } from './drive-run.ts';
export type { Authorization } from '@countersign/agent';
export { toAgentsTool, type GateTool } from './to-agents-tool.ts';
export { decodeSavedRun, type SavedRun } from './saved-run.ts';
