export { createAgentClient } from './create-agent-client.ts';
export { clientSecretBasic, formUrlEncode } from './client-secret-basic.ts';
export { CLIENT_ASSERTION_LIFETIME_SECONDS, JWT_BEARER_ASSERTION_TYPE, type ClientAssertionAlg } from './client-assertion.ts';
export type { ClientAuthentication, ClientAuthMethod } from './client-authentication.ts';
export type {
  AgentClient,
  AgentClientBaseOptions,
  AgentClientOptions,
  ApprovalRequest,
  DecisionResult,
  Fetch,
  RedeemOptions,
  Sleep,
  TokenPollResult,
  WaitForDecisionOptions,
} from './types.ts';
