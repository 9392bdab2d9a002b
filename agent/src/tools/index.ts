// Tool parameters are zod schemas. `z` is re-exported so a tool package needs no zod of its own and
// builds its schemas with the very zod the runner validates and describes them with.
export { z } from 'zod';
export { defineTool, isGatedTool } from './define-tool.ts';
export { describeTool, listGatedTools } from './describe-tools.ts';
export { parseArguments } from './parse-arguments.ts';
export { buildAction, buildApprovalRequest } from './build-action.ts';
export { executeApproved, type ExecuteApprovedOptions, type RedeemingClient } from './execute-approved.ts';
export { waitForApproval, type PollingClient, type WaitForApprovalOptions, type WaitStrategy } from './wait-for-approval.ts';
export { createPingInbox, type PingInbox, type PingInboxOptions, type PingSource } from './ping-inbox.ts';
export { createKeyedLock, type KeyedLock } from './keyed-lock.ts';
export {
  createToolRunner,
  type Authorization,
  type AuthorizeOptions,
  type AuthorizeRequest,
  type CallOptions,
  type RunnerClient,
  type ToolRunner,
  type ToolRunnerOptions,
} from './create-tool-runner.ts';
export type { ApprovedRunResult, ReportedOutcome, ToolCallResult, ToolCallStatus } from './result-types.ts';
export type {
  AnyGatedTool,
  AnyPlainTool,
  AnyTool,
  ApprovalSpec,
  ApprovedExecution,
  Awaitable,
  GatedTool,
  PlainExecution,
  PlainTool,
  ToolDescription,
} from './tool-types.ts';
