import type { AgentClient, DecisionResult, Sleep } from '@countersign/agent';
import type { CallRecord } from './store/index.ts';

/** CIBA Core §11: after `slow_down`, this and every later poll waits at least 5 s longer. */
const SLOW_DOWN_STEP_SECONDS = 5;

/** How one MCP client can wait for a decision. */
export interface Waiter {
  /** Aborts when the client cancels the call or goes away: the wait ends as `approval_pending`. */
  signal: AbortSignal;
  /**
   * URL-mode elicitation (`elicitation/create`, mode `url`) about one request, when the client
   * declared it; resolves with the client's `action`. Aborting `signal` cancels the request.
   */
  elicit?: (params: { auth_req_id: string; message: string; url: string }, signal: AbortSignal) => Promise<'accept' | 'decline' | 'cancel'>;
  /**
   * The request was decided: `notifications/elicitation/complete` for every elicitation about it
   * the client accepted, in this wait or in an earlier call's.
   */
  decided?: (auth_req_id: string) => Promise<void>;
  /** Seconds to wait instead of the config's `wait_seconds` (a task waits for the decision). */
  waitSeconds?: number;
  /** A progress notification, for a client that asked for them (keeps its timeout from firing). */
  progress?: (elapsedSeconds: number) => Promise<void>;
}

/** What {@link waitForDecision} needs of the gateway. */
export interface WaitDeps {
  countersign: Pick<AgentClient, 'pollToken'>;
  config: { wait_seconds: number };
  now: () => number;
  sleep: Sleep;
  log: (line: string) => void;
  lastPolls: Map<string, number>;
}

/**
 * Polls the token endpoint for one pending request until it is decided or `wait_seconds` passed,
 * never sooner than `interval` after this process's last poll of it. With a client that has URL
 * elicitation, first asks it to open the request in the approver app (`elicitation/create`,
 * mode `url`) and, once decided, tells it so (`notifications/elicitation/complete`); a client that
 * declines the elicitation ends the wait.
 *
 * @returns the decision, or `pending` when the wait ended first.
 * @throws CountersignError of the token endpoint (`invalid_grant`…); a network error.
 * @see CIBA Core 1.0 §7.3 (`interval`), §10.1, §11; MCP 2025-11-25 "Elicitation" (URL mode)
 */
export async function waitForDecision(deps: WaitDeps, record: Extract<CallRecord, { state: 'pending' }>, waiter: Waiter, options: { url: string; onSlowDown: (interval: number) => Promise<void> }): Promise<DecisionResult | { status: 'pending' }> {
  const { auth_req_id } = record;
  const started = deps.now();
  const deadline = started + (waiter.waitSeconds ?? deps.config.wait_seconds) * 1000;
  let interval = record.interval;
  const wake = new AbortController();
  let elicitation: { finish(): void } | undefined;
  const signal = AbortSignal.any([waiter.signal, wake.signal]);
  try {
    for (;;) {
      if (signal.aborted) return { status: 'pending' };
      const last = deps.lastPolls.get(auth_req_id);
      const nextAt = last === undefined ? deps.now() : last + interval * 1000;
      if (nextAt > deadline) {
        await pause(deps.sleep, deadline - deps.now(), signal);
        return { status: 'pending' };
      }
      await pause(deps.sleep, nextAt - deps.now(), signal);
      if (signal.aborted) return { status: 'pending' };
      deps.lastPolls.set(auth_req_id, deps.now());
      const polled = await deps.countersign.pollToken(auth_req_id);
      if (polled.status === 'slow_down') {
        interval += SLOW_DOWN_STEP_SECONDS;
        await options.onSlowDown(interval);
      } else if (polled.status === 'pending') {
        // Only once a poll says it is still pending: a resumed call that finds the decision made
        // sends the client nothing to open.
        elicitation ??= startElicitation(deps, record, waiter, options.url, wake);
        await waiter.progress?.((deps.now() - started) / 1000).catch(() => undefined);
      } else {
        deps.lastPolls.delete(auth_req_id);
        await waiter.decided?.(auth_req_id).catch((error: unknown) => deps.log(`elicitation complete failed: ${(error as Error)?.message}`));
        return polled;
      }
    }
  } finally {
    elicitation?.finish();
  }
}

function startElicitation(deps: WaitDeps, record: Extract<CallRecord, { state: 'pending' }>, waiter: Waiter, url: string, wake: AbortController) {
  if (!waiter.elicit) return { finish() {} };
  const cancel = new AbortController();
  let answered = false;
  const message = `Approve "${record.binding_message}" on your phone: Countersign asks you before this tool runs. Open the request in the approver app.`;
  void waiter
    .elicit({ auth_req_id: record.auth_req_id, message, url }, cancel.signal)
    .then((action) => {
      answered = true;
      // Declined or cancelled: the person will not approve now; stop holding the call open.
      if (action !== 'accept') wake.abort();
    })
    .catch((error: unknown) => {
      answered = true;
      if (!cancel.signal.aborted) deps.log(`elicitation failed: ${(error as Error)?.message ?? String(error)}`);
    });
  return {
    /** The wait is over: an elicitation the client has not answered yet is cancelled. */
    finish() {
      if (!answered) cancel.abort();
    },
  };
}

/** Sleeps `ms` (nothing when ≤ 0); an abort ends it early without throwing. */
async function pause(sleep: Sleep, ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0) return;
  await sleep(ms, signal).catch(() => undefined);
}
