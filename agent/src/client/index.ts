export { createAgentClient } from './create-agent-client.ts';
export { clientSecretBasic, formUrlEncode } from './client-secret-basic.ts';
export type {
  AgentClient,
  AgentClientOptions,
  ApprovalRequest,
  DecisionResult,
  Fetch,
  RedeemOptions,
  Sleep,
  TokenPollResult,
  WaitForDecisionOptions,
} from './types.ts';
