import type { AgentClient, DecisionResult, Sleep } from '../client/index.ts';
import type { PingSource } from './ping-inbox.ts';

/**
 * How a runner waits for the person's decision:
 * - `'none'`: it does not; the call ends `approval_pending` and the run resumes later.
 * - `'poll'`: it polls the token endpoint, honouring `interval` and `slow_down` (CIBA Core §7.3, §11).
 * - `{ ping }`: it waits for the server's ping, then reads the decision with one poll (CIBA Core §10.2).
 */
export type WaitStrategy = 'none' | 'poll' | { ping: PingSource };

/** The part of the agent client a wait uses. */
export type PollingClient = Pick<AgentClient, 'pollToken' | 'waitForDecision'>;

/** Options of {@link waitForApproval}. */
export interface WaitForApprovalOptions {
  client: PollingClient;
  wait: WaitStrategy;
  auth_req_id: string;
  /** Seconds between polls. */
  interval: number;
  /** Stop waiting after this many seconds (the call then ends `approval_pending`); unbounded when absent. */
  timeoutSeconds?: number;
  /**
   * Seconds the request has left. A ping wait polls once when they are up, so a lost ping
   * still ends in `expired` rather than a wait for ever.
   */
  expiresIn: number;
  /** Waits out a ping deadline; rejects with `signal.reason` once `signal` aborts. */
  sleep: Sleep;
  /** Epoch milliseconds, for the ping deadline. */
  now: () => number;
  signal?: AbortSignal;
}

/** How long past `expires_in` a ping wait gives the server to notice the expiry. */
const EXPIRY_GRACE_SECONDS = 2;

/**
 * Waits for the decision on one approval request by the runner's {@link WaitStrategy}.
 *
 * @returns the decision, or `pending` when the strategy is `'none'` or the wait timed out.
 * @throws the signal's reason when `signal` aborts; CountersignError of the token endpoint
 *   (`invalid_grant`…).
 */
export async function waitForApproval(options: WaitForApprovalOptions): Promise<DecisionResult | { status: 'pending' }> {
  const { client, wait, auth_req_id, interval, timeoutSeconds, signal } = options;
  if (wait === 'none') return { status: 'pending' };
  if (wait === 'poll') {
    try {
      return await client.waitForDecision(auth_req_id, { interval, ...(signal ? { signal } : {}), ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }) });
    } catch (error) {
      if (error instanceof DOMException && error.name === 'TimeoutError' && !signal?.aborted) return { status: 'pending' };
      throw error;
    }
  }
  return waitForPing(wait.ping, options);
}

async function waitForPing(ping: PingSource, options: WaitForApprovalOptions): Promise<DecisionResult | { status: 'pending' }> {
  const { client, auth_req_id, timeoutSeconds, expiresIn, sleep, now, signal } = options;
  const deadline = now() + Math.min(timeoutSeconds ?? Number.POSITIVE_INFINITY, expiresIn + EXPIRY_GRACE_SECONDS) * 1000;
  for (;;) {
    const woken = await pingOrDeadline(ping, auth_req_id, Math.max(0, deadline - now()), sleep, signal);
    // After a ping the decision is there to read; after the deadline, one poll catches a lost ping.
    const polled = await client.pollToken(auth_req_id, signal ? { signal } : {});
    if (polled.status !== 'pending' && polled.status !== 'slow_down') return polled;
    // Still undecided after a ping (a forged one, or a stale retry): wait on, within the same deadline.
    if (woken === 'deadline') return { status: 'pending' };
  }
}

/** Races the ping against a deadline `ms` away; whichever loses is aborted. */
async function pingOrDeadline(ping: PingSource, auth_req_id: string, ms: number, sleep: Sleep, signal: AbortSignal | undefined): Promise<'ping' | 'deadline'> {
  const stop = new AbortController();
  const both = signal ? AbortSignal.any([signal, stop.signal]) : stop.signal;
  // Settled, never rejected: the loser is aborted below, and its rejection must not go unhandled.
  const settle = (promise: Promise<void>, what: 'ping' | 'deadline') =>
    promise.then(
      () => ({ what, error: undefined as unknown }),
      (error: unknown) => ({ what, error }),
    );
  let first;
  try {
    first = await Promise.race([settle(ping.waitForPing(auth_req_id, { signal: both }), 'ping'), settle(sleep(ms, both), 'deadline')]);
  } finally {
    stop.abort();
  }
  signal?.throwIfAborted();
  if (first.error !== undefined) throw first.error;
  return first.what;
}
