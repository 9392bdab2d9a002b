import { createAgentClient, type AgentClient, type ApprovalRequest, type BcAuthorizeResponse } from '@countersign/agent';
import type { Harness } from './harness.ts';

/** What a test does around each `/bc-authorize` of a {@link harnessClient}. */
export interface HarnessClientHooks {
  /** Before the request is sent (to count the requests, failed ones included). */
  beforeAsk?: (request: ApprovalRequest) => void;
  /** Once the server answered: record it, or let the person decide on the phone right away. */
  afterAsk?: (request: ApprovalRequest, answer: BcAuthorizeResponse) => void | Promise<void>;
}

/**
 * The agent client of a registered client on the harness: polling waits advance the server's
 * clock instead of real time, and `hooks` run around every approval request.
 */
export function harnessClient(harness: Harness, clientId: string, clientSecret: string, hooks: HarnessClientHooks = {}): AgentClient {
  const client = createAgentClient({
    issuer: harness.issuer,
    clientId,
    clientSecret,
    fetch: harness.fetch,
    sleep: async (ms) => harness.clock.advance(ms / 1000),
    now: () => harness.clock.now(),
  });
  return {
    ...client,
    async requestApproval(request) {
      hooks.beforeAsk?.(request);
      const answer = await client.requestApproval(request);
      await hooks.afterAsk?.(request, answer);
      return answer;
    },
  };
}
