import {
  buildApprovalRequest,
  callKey,
  CountersignError,
  createKeyedLock,
  waitForApproval,
  type AnyGatedTool,
  type DecisionResult,
  type PendingApproval,
  type PendingApprovals,
  type RunnerClient,
  type Sleep,
  type ToolCallResult,
  type WaitStrategy,
} from '@countersign/agent';

/**
 * What a gated call's approval came to, before anything ran: `approved` (the token waits in the
 * store for the tool's `execute` to redeem), or the runner's own answers for everything else.
 */
export type Authorization =
  | { status: 'approved'; tool: string; auth_req_id: string }
  | Extract<ToolCallResult, { status: 'approval_pending' | 'denied' | 'expired' | 'refused' }>;

/** What {@link createAuthorizer} needs: the runner's own options, so both share one store. */
export interface AuthorizerOptions {
  client: RunnerClient;
  wait: WaitStrategy;
  waitTimeoutSeconds?: number | undefined;
  pending: PendingApprovals;
  now: () => number;
  sleep: Sleep;
}

/** CIBA Core §11: after `slow_down`, this and every later poll waits at least 5 s longer. */
const SLOW_DOWN_STEP_SECONDS = 5;

/**
 * The half of a gated call the tool runner has no step for: ask (or find the waiting approval),
 * wait for the person, and keep the token in the runner's store, without running anything. The
 * tool's `execute` then spends that token through the runner, which redeems it against the
 * action rebuilt from the arguments the SDK runs the tool with.
 *
 * Every write to a record is a read-modify-write under the call's lock, so a run state saved
 * while another wait fetches the token never overwrites that token (it is issued only once).
 */
export function createAuthorizer(options: AuthorizerOptions) {
  const { client, wait, waitTimeoutSeconds, pending, now, sleep } = options;
  const exclusive = createKeyedLock();

  /** Writes `changes` over the record as stored now; `fallback` when it is gone. */
  function update(call_key: string, changes: Partial<PendingApproval>, fallback?: PendingApproval) {
    return exclusive(call_key, async () => {
      const current = (await pending.get(call_key)) ?? fallback;
      if (current) await pending.put({ ...current, ...changes });
    });
  }

  /**
   * Finds the call's waiting approval, or asks for one, and keeps `run_state` on it.
   *
   * @param args - validated by the tool's schema (`parseArguments`).
   * @returns the record, and whether this asked (false: it was waiting already, maybe approved).
   * @throws CountersignError of `bc-authorize` or of the tool's hooks (`transaction_conflict`,
   *   `not_found`, `invalid_request`…); a 5xx or network error.
   */
  async function ask<C>(tool: AnyGatedTool<C>, args: unknown, context: C, run_state: string): Promise<{ record: PendingApproval; asked: boolean }> {
    const call_key = await callKey(tool.name, args);
    return exclusive(call_key, async () => {
      const known = await pending.get(call_key);
      if (known) {
        const record = { ...known, run_state };
        await pending.put(record);
        return { record, asked: false };
      }
      const request = await buildApprovalRequest(tool, args, context);
      const ping = typeof wait === 'object' ? wait.ping : undefined;
      const asked = await client.requestApproval({ ...request, ...(ping ? { client_notification_token: ping.client_notification_token } : {}) });
      if (await pending.getByRequest(asked.auth_req_id)) {
        // Other arguments that build the very same action (same transaction_id) wait already: one
        // approval can run one call, so this one is refused rather than handed the other's token.
        throw new CountersignError('transaction_conflict', `${tool.name}: another call waits for approval of the same action`);
      }
      const code = asked.binding_code === undefined ? {} : { binding_code: asked.binding_code };
      const record: PendingApproval = { call_key, auth_req_id: asked.auth_req_id, tool: tool.name, interval: asked.interval, expires_at: now() + asked.expires_in * 1000, ...code, run_state };
      await pending.put(record);
      return { record, asked: true };
    });
  }

  /** Keeps the newest state of the run on a call that still waits. */
  function saveRunState(call_key: string, run_state: string): Promise<void> {
    return update(call_key, { run_state });
  }

  /**
   * Waits for the person's decision on a call's approval by the runner's strategy and keeps an
   * issued token in the store. Nothing runs here.
   *
   * @param pollFirst - poll once before waiting: the decision may have come while no one waited
   *   (a restart, a lost ping).
   * @returns `approved` once the token is stored; `approval_pending` when the wait timed out (or
   *   the strategy is `'none'`); `denied`, `expired`; `refused` for a 4xx of the token endpoint
   *   (`invalid_grant`: the token was issued already, the record is dropped).
   * @throws a 5xx or network error; the signal's reason when it aborts.
   * @see CIBA Core 1.0 §7.3, §10.1, §10.2, §11
   */
  async function decide(record: PendingApproval, { pollFirst, signal }: { pollFirst: boolean; signal?: AbortSignal }): Promise<Authorization> {
    const { call_key, auth_req_id, tool } = record;
    if (record.access_token !== undefined) return { status: 'approved', tool, auth_req_id };
    const sig = signal ? { signal } : {};
    try {
      let { interval } = record;
      if (pollFirst) {
        const polled = await client.pollToken(auth_req_id, sig);
        if (polled.status === 'slow_down') {
          interval += SLOW_DOWN_STEP_SECONDS;
          await update(call_key, { interval });
        } else if (polled.status !== 'pending') return await settle(record, polled);
      }
      const decision = await waitForApproval({
        client,
        wait,
        auth_req_id,
        interval,
        expiresIn: Math.max(0, (record.expires_at - now()) / 1000),
        sleep,
        now,
        ...(waitTimeoutSeconds === undefined ? {} : { timeoutSeconds: waitTimeoutSeconds }),
        ...sig,
      });
      if (decision.status === 'pending') {
        const code = record.binding_code === undefined ? {} : { binding_code: record.binding_code };
        return { status: 'approval_pending', tool, auth_req_id, expires_in: Math.max(0, Math.ceil((record.expires_at - now()) / 1000)), interval, ...code };
      }
      return await settle(record, decision);
    } catch (error) {
      if (!(error instanceof CountersignError) || error.status >= 500) throw error;
      // invalid_grant: the token was issued already, or the request is gone; it can never be spent.
      if (error.code === 'invalid_grant') await exclusive(call_key, () => pending.delete(call_key));
      return { status: 'refused', tool, error: error.code, error_description: error.message, auth_req_id };
    }
  }

  async function settle(record: PendingApproval, decision: DecisionResult): Promise<Authorization> {
    const { call_key, auth_req_id, tool } = record;
    if (decision.status === 'approved') {
      const { access_token, expires_in } = decision.token;
      await update(call_key, { access_token, expires_at: now() + expires_in * 1000 }, record);
      return { status: 'approved', tool, auth_req_id };
    }
    await exclusive(call_key, () => pending.delete(call_key));
    return { status: decision.status, tool, auth_req_id };
  }

  return { ask, saveRunState, decide };
}

/** The authorizer of {@link createAuthorizer}. */
export type Authorizer = ReturnType<typeof createAuthorizer>;
