import type { RunnerClient, ToolCallResult } from '@countersign/agent';

/**
 * Thrown by a {@link holdingClient}'s `redeem`: the approval was granted and its token is kept in
 * the runner's store, unspent. Never a `CountersignError`, so a runner passes it on as it is
 * instead of turning it into a refusal, and keeps the record (token included) for the next call.
 */
export class ApprovalHeld extends Error {
  constructor() {
    super('the approval is granted and held for the tool call; only the executing runner spends it');
    this.name = 'ApprovalHeld';
  }
}

/**
 * The agent client as a runner that must never run a tool sees it: it asks for approvals and
 * reads decisions (so tokens land in the shared store), but it cannot redeem, and a runner runs a
 * gated tool only after a successful redemption. The adapter's approval hook and its wait for
 * decisions use runners with this client; only the runner behind the tools' `execute` spends.
 *
 * @param client_notification_token - for a ping client, the bearer of its ping inbox, sent with
 *   every request it asks for (CIBA Core §7.1 requires it of ping clients), so a runner on this
 *   client may ask without waiting for pings itself.
 */
export function holdingClient(client: RunnerClient, client_notification_token?: string): RunnerClient {
  return {
    requestApproval: (request) => client.requestApproval(client_notification_token === undefined ? request : { client_notification_token, ...request }),
    pollToken: (auth_req_id, options) => client.pollToken(auth_req_id, options),
    waitForDecision: (auth_req_id, options) => client.waitForDecision(auth_req_id, options),
    redeem: async () => {
      throw new ApprovalHeld();
    },
    reportOutcome: async () => {
      throw new ApprovalHeld();
    },
  };
}

/** What a call of a holding runner comes to: the runner's answer, or `held` once approved. */
export type HoldingResult = Exclude<ToolCallResult, { status: 'executed' | 'failed' }> | { status: 'held'; tool: string };

/**
 * Runs one call of a runner built on a {@link holdingClient} and says where the approval stands.
 *
 * @throws a 5xx or network error of the server; an `Error` if the runner reports a run (it cannot).
 */
export async function holdingCall(tool: string, call: () => Promise<ToolCallResult>): Promise<HoldingResult> {
  let result: ToolCallResult;
  try {
    result = await call();
  } catch (error) {
    if (error instanceof ApprovalHeld) return { status: 'held', tool };
    throw error;
  }
  if (result.status === 'executed' || result.status === 'failed') {
    // Only an ungated tool runs without a redemption, and no holding runner is called for one.
    throw new Error(`${tool}: a holding runner ran the tool`);
  }
  return result;
}
