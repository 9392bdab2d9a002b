import { StoreUnavailableError } from './redis-failures.ts';

/**
 * How a Redis call failed when Redis itself is the problem:
 * - `timeout`: no answer in time. The command may still have run (a paused Redis runs it later),
 *   so the outcome of a state change is unknown.
 * - `unavailable`: Redis cannot be reached or cannot serve right now (down, reconnecting,
 *   loading its data, cluster without a slot map).
 */
export type RedisFailure = 'timeout' | 'unavailable';

/** Error names ioredis gives a command it could not deliver. */
const UNAVAILABLE_NAMES = new Set(['MaxRetriesPerRequestError', 'ClusterAllFailedError']);
/** Messages of ioredis' plain `Error`s for the same (it has no class for them). */
const UNAVAILABLE_MESSAGES = [
  /^Connection is closed\.?$/,
  /enableOfflineQueue options is false/,
  /^None of startup nodes is available/,
  /^Failed to refresh slots cache/,
  /^Too many Cluster redirections/,
  // `LateSwapError`: the store refused a swap that reached Redis after its deadline, unapplied.
  /^the state change reached Redis after its deadline/,
];
/**
 * Redis error replies that mean "not now" or "not here" rather than "not so": the command did not
 * run, and retrying later (or on the right node) can succeed.
 */
const UNAVAILABLE_REPLIES = /^(LOADING|BUSY|CLUSTERDOWN|TRYAGAIN|MASTERDOWN|NOREPLICAS|READONLY|MISCONF|MOVED|ASK|NOSCRIPT)\b/;
/** Socket errors on the way to Redis. */
const UNAVAILABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);

/**
 * Whether `error` (or an error it was caused by) says Redis is slow or unreachable, and how.
 * Everything else (a script error, `CROSSSLOT`, `WRONGTYPE`) is a bug and answers null: it must
 * stay a 500, not be retried as if it would pass. The table and which errors are retried first:
 * docs/reliability.md "Redis errors and deadlines".
 *
 * @see RFC 6749 §5.2 and CIBA Core 1.0 §13 (`temporarily_unavailable`)
 */
export function redisFailureOf(error: unknown): RedisFailure | null {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; current = current.cause, depth++) {
    // The store's own verdict (redis-guard.ts): it knows whether the call was a write that may have run.
    if (current instanceof StoreUnavailableError) return current.failure;
    // Sent, and cut off before the answer (a timeout, a connection closed under it): it may have run.
    if (current.message === 'Command timed out' || current.name === 'StoreDeadlineError' || current.name === 'AbortError') return 'timeout';
    if (UNAVAILABLE_NAMES.has(current.name)) return 'unavailable';
    if (current.name === 'ReplyError' && UNAVAILABLE_REPLIES.test(current.message)) return 'unavailable';
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && UNAVAILABLE_CODES.has(code)) return 'unavailable';
    if (UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(current.message))) return 'unavailable';
  }
  return null;
}
