import type { AgentClient, Sleep } from '../client/index.ts';
import { CountersignError, type ErrorCode } from '@countersign/shared';
import { executeApproved } from './execute-approved.ts';
import { createKeyedLock } from './keyed-lock.ts';
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
  /** `'none'`: read the decision at most once (`pollFirst`), never wait; the runner's strategy otherwise. */
  wait?: 'none';
}

/**
 * What a gated call's approval came to, with nothing run: `approved` (the approval token waits in
 * the runner's store for a `call` or `resume` with the same arguments to redeem), or why not.
 */
export type Authorization = { status: 'approved'; tool: string; auth_req_id: string } | Extract<ToolCallResult, { status: 'approval_pending' | 'denied' | 'expired' | 'refused' }>;

/**
 * Makes the two halves of a gated call once its approval was asked for. Call both under the
 * runner's per-request lock, so two waits never poll one request (its token is issued once).
 *
 * - `authorize`: get the decision (unless the token is already held) and keep an issued token in
 *   the store. Nothing is redeemed, nothing runs.
 * - `settle`: `authorize`, then spend the token on exactly these arguments.
 * - `saveRunState`: an adapter's run state onto a call's record, under the lock of every write to
 *   that record, so it never overwrites a token stored meanwhile.
 *
 * @throws (`authorize`, `settle`) CountersignError of the token endpoint (`invalid_grant`…); a 5xx
 *   or network error; the signal's reason when it aborts.
 */
export function createSettler<C>(options: SettlerOptions) {
  const { client, wait, waitTimeoutSeconds, pending, now, sleep } = options;
  // Short-held, per call key: every read-modify-write of a record, never a wait.
  const writing = createKeyedLock();

  async function authorize({ tool, auth_req_id, pollFirst, signal, wait: override }: SettleStep<C>): Promise<Authorization> {
    // Read under the lock: a concurrent resume may have spent or dropped the approval meanwhile.
    const record = await pending.getByRequest(auth_req_id);
    if (!record) return refused(tool.name, new CountersignError('invalid_grant', 'the approval was already settled'), auth_req_id);
    if (record.access_token !== undefined) return { status: 'approved', tool: tool.name, auth_req_id };
    const decision = await decide(record, pollFirst, override ?? wait, signal).catch(async (error: unknown) => {
      // invalid_grant: the token was already issued, or the request is gone; this record can never be spent.
      if (error instanceof CountersignError && error.code === 'invalid_grant') await remove(record.call_key);
      throw error;
    });
    if (decision.status === 'pending') {
      const expires_in = Math.max(0, Math.ceil((record.expires_at - now()) / 1000));
      const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
      return { status: 'approval_pending', tool: tool.name, auth_req_id, expires_in, interval: record.interval, ...code };
    }
    if (decision.status !== 'approved') {
      await remove(record.call_key);
      return { status: decision.status, tool: tool.name, auth_req_id };
    }
    // Kept before anyone redeems: if the redeem fails on the wire, a resume can still spend it.
    await update(record, { access_token: decision.token.access_token, expires_at: now() + decision.token.expires_in * 1000 });
    return { status: 'approved', tool: tool.name, auth_req_id };
  }

  async function settle(step: SettleStep<C>): Promise<ToolCallResult> {
    const { tool, args, context, auth_req_id, signal } = step;
    const authorization = await authorize(step);
    if (authorization.status !== 'approved') return authorization;
    const record = await pending.getByRequest(auth_req_id);
    if (record?.access_token === undefined) return refused(tool.name, new CountersignError('invalid_grant', 'the approval was already settled'), auth_req_id);
    const result = await executeApproved({ client, tool, args, context, access_token: record.access_token, auth_req_id, ...(signal ? { signal } : {}) });
    if (result.status !== 'refused' || !KEEP_APPROVAL_ON.has(result.error)) await remove(record.call_key);
    return result;
  }

  /** Keeps `run_state` on a call's record; false when the call has no pending record. */
  function saveRunState(call_key: string, run_state: string): Promise<boolean> {
    return writing(call_key, async () => {
      const current = await pending.get(call_key);
      if (current) await pending.put({ ...current, run_state });
      return current !== undefined;
    });
  }

  /**
   * Writes `changes` over the record as stored now, not as read before a wait: an adapter may have
   * attached its `run_state` meanwhile, and that must survive.
   */
  function update(record: PendingApproval, changes: Partial<PendingApproval>) {
    return writing(record.call_key, async () => {
      const current = (await pending.getByRequest(record.auth_req_id)) ?? record;
      await pending.put({ ...current, ...changes });
    });
  }

  function remove(call_key: string) {
    return writing(call_key, () => pending.delete(call_key));
  }

  async function decide(record: PendingApproval, pollFirst: boolean, strategy: WaitStrategy, signal?: AbortSignal) {
    if (pollFirst) {
      const polled = await client.pollToken(record.auth_req_id, signal ? { signal } : {});
      if (polled.status === 'slow_down') {
        record.interval += SLOW_DOWN_STEP_SECONDS;
        await update(record, { interval: record.interval });
      } else if (polled.status !== 'pending') return polled;
    }
    return waitForApproval({
      client,
      wait: strategy,
      auth_req_id: record.auth_req_id,
      interval: record.interval,
      expiresIn: Math.max(0, (record.expires_at - now()) / 1000),
      sleep,
      now,
      ...(waitTimeoutSeconds === undefined ? {} : { timeoutSeconds: waitTimeoutSeconds }),
      ...(signal ? { signal } : {}),
    });
  }

  return { authorize, settle, saveRunState };
}
