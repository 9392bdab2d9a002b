import type { AgentClient, Sleep } from '../client/index.ts';
import { CountersignError, type ErrorCode } from '@countersign/shared';
import { executeApproved } from './execute-approved.ts';
import type { PendingApproval, PendingApprovals } from '../pending/index.ts';
import { refused } from './refusal.ts';
import type { ToolCallResult } from './result-types.ts';
import type { AnyGatedTool } from './tool-types.ts';
import { waitForApproval, type WaitStrategy } from './wait-for-approval.ts';

/** The part of the agent client a runner uses. */
export type RunnerClient = Pick<AgentClient, 'requestApproval' | 'pollToken' | 'waitForDecision' | 'redeem' | 'reportOutcome'>;

/** CIBA Core §11: after `slow_down`, this and every later poll waits at least 5 s longer. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** Refusals after which the approval is still good for the approved arguments. */
const KEEP_APPROVAL_ON: ReadonlySet<ErrorCode> = new Set(['approval_mismatch']);

/** What {@link createSettler} needs: the runner's options, resolved. */
export interface SettlerOptions {
  client: RunnerClient;
  wait: WaitStrategy;
  waitTimeoutSeconds: number | undefined;
  pending: PendingApprovals;
  now: () => number;
  sleep: Sleep;
}

/** One step of a gated call once the approval was asked for; see {@link createSettler}. */
export interface SettleStep<C> {
  tool: AnyGatedTool<C>;
  /** The validated, frozen arguments the tool will run with. */
  args: unknown;
  context: C;
  auth_req_id: string;
  /** Poll once before waiting: on resume, the decision may have come while no one waited. */
  pollFirst: boolean;
  signal?: AbortSignal;
}

/**
 * Makes the second half of a gated call: get the decision (unless the token is already held),
 * then spend it on exactly these arguments. Call it under the runner's per-request lock.
 *
 * @returns `approval_pending`, `denied`, `expired`, or what spending the approval came to.
 * @throws CountersignError of the token endpoint (`invalid_grant`…); a 5xx or network error.
 */
export function createSettler<C>(options: SettlerOptions) {
  const { client, wait, waitTimeoutSeconds, pending, now, sleep } = options;

  return async function settle({ tool, args, context, auth_req_id, pollFirst, signal }: SettleStep<C>): Promise<ToolCallResult> {
    // Read under the lock: a concurrent resume may have spent or dropped the approval meanwhile.
    const record = await pending.getByRequest(auth_req_id);
    if (!record) return refused(tool.name, new CountersignError('invalid_grant', 'the approval was already settled'), auth_req_id);
    if (record.access_token === undefined) {
      const decision = await decide(record, pollFirst, signal).catch(async (error: unknown) => {
        // invalid_grant: the token was already issued, or the request is gone; this record can never be spent.
        if (error instanceof CountersignError && error.code === 'invalid_grant') await pending.delete(record.call_key);
        throw error;
      });
      if (decision.status === 'pending') {
        const expires_in = Math.max(0, Math.ceil((record.expires_at - now()) / 1000));
        const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
        return { status: 'approval_pending', tool: tool.name, auth_req_id, expires_in, interval: record.interval, ...code };
      }
      if (decision.status !== 'approved') {
        await pending.delete(record.call_key);
        return { status: decision.status, tool: tool.name, auth_req_id };
      }
      record.access_token = decision.token.access_token;
      record.expires_at = now() + decision.token.expires_in * 1000;
      // Kept before redeeming: if the redeem fails on the wire, a resume can still spend it.
      await update(record, { access_token: record.access_token, expires_at: record.expires_at });
    }
    const result = await executeApproved({ client, tool, args, context, access_token: record.access_token, auth_req_id, ...(signal ? { signal } : {}) });
    if (result.status !== 'refused' || !KEEP_APPROVAL_ON.has(result.error)) await pending.delete(record.call_key);
    return result;
  };

  /**
   * Writes `changes` over the record as stored now, not as read before a wait: an adapter may have
   * attached its `run_state` meanwhile, and that must survive.
   */
  async function update(record: PendingApproval, changes: Partial<PendingApproval>) {
    const current = (await pending.getByRequest(record.auth_req_id)) ?? record;
    await pending.put({ ...current, ...changes });
  }

  async function decide(record: PendingApproval, pollFirst: boolean, signal?: AbortSignal) {
    if (pollFirst) {
      const polled = await client.pollToken(record.auth_req_id, signal ? { signal } : {});
      if (polled.status === 'slow_down') {
        record.interval += SLOW_DOWN_STEP_SECONDS;
        await update(record, { interval: record.interval });
      } else if (polled.status !== 'pending') return polled;
    }
    return waitForApproval({
      client,
      wait,
      auth_req_id: record.auth_req_id,
      interval: record.interval,
      expiresIn: Math.max(0, (record.expires_at - now()) / 1000),
      sleep,
      now,
      ...(waitTimeoutSeconds === undefined ? {} : { timeoutSeconds: waitTimeoutSeconds }),
      ...(signal ? { signal } : {}),
    });
  }
}
