import { CountersignError } from '@countersign/shared';
import type { RedisFailure } from './redis-connect.ts';

/**
 * What a Redis error says about the command that got it, and so what may be done about it
 * (docs/reliability.md "Redis errors and deadlines" has the table):
 * - `moved`: `MOVED slot host:port`. The node does not own the slot; the command did not run. Retry
 *   after refreshing the slot map.
 * - `ask`: `ASK slot host:port`, the slot is being migrated; the command did not run. Retry.
 * - `noscript`: `NOSCRIPT`, the node has not cached the script (a restart, a promoted replica,
 *   `SCRIPT FLUSH`); it did not run. Retry: the script is sent in full (EVAL) the next time.
 * - `not_now`: `TRYAGAIN`, `CLUSTERDOWN`, `LOADING`, `BUSY`, `MASTERDOWN`, `READONLY`: the node
 *   refused to run it for now. Retry after a short wait (and a slot-map refresh in a cluster:
 *   `READONLY` is a master demoted by a failover, `CLUSTERDOWN` a failover under way).
 * - `refused`: `NOREPLICAS`, `MISCONF`: refused until an operator acts; did not run. No retry.
 * - `not_sent`: the client never wrote it (no connection, offline queue off, no slot map, too many
 *   redirections). Retry after a short wait.
 * - `lost`: the connection dropped while the command may have been on the wire (`Connection is
 *   closed.`, a reset socket, aborted, given up after reconnecting). It may have run: only a read
 *   is retried; a write is an unknown outcome.
 * - `timeout`: `Command timed out`: sent, no answer. It may have run (a paused Redis runs it when it
 *   resumes): never retried, an unknown outcome.
 * - null: any other error (a script error, `CROSSSLOT`, `WRONGTYPE`, a bug): not retried, not
 *   hidden: it stays a 500.
 */
export type RedisErrorKind = 'moved' | 'ask' | 'noscript' | 'not_now' | 'refused' | 'not_sent' | 'lost' | 'timeout';

const REPLY_KINDS: Record<string, RedisErrorKind> = {
  MOVED: 'moved',
  ASK: 'ask',
  NOSCRIPT: 'noscript',
  TRYAGAIN: 'not_now',
  CLUSTERDOWN: 'not_now',
  LOADING: 'not_now',
  BUSY: 'not_now',
  MASTERDOWN: 'not_now',
  READONLY: 'not_now',
  NOREPLICAS: 'refused',
  MISCONF: 'refused',
};

/** ioredis' own messages for a command it did not write (it has no error class for them). */
const NOT_SENT_MESSAGES = [/enableOfflineQueue options is false/, /^None of startup nodes is available/, /^Failed to refresh slots cache/, /^Too many Cluster redirections/];
/** Socket errors of a connection attempt: nothing was written on it. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
/** Socket errors of an open connection: what was on the wire may have reached Redis. */
const LOST_CODES = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT']);

/**
 * Classifies one error a Redis command was rejected with (see {@link RedisErrorKind}); null for
 * an error that is not Redis being unavailable.
 */
export function redisErrorKind(error: unknown): RedisErrorKind | null {
  if (!(error instanceof Error)) return null;
  const { name, message } = error;
  if (name === 'ReplyError') {
    const space = message.indexOf(' ');
    return REPLY_KINDS[space < 0 ? message : message.slice(0, space)] ?? null;
  }
  if (message === 'Command timed out') return 'timeout';
  if (name === 'ClusterAllFailedError') return 'not_sent';
  // MaxRetriesPerRequestError flushes the commands in flight too, not only the queued ones.
  if (name === 'MaxRetriesPerRequestError' || name === 'AbortError' || /^Connection is closed\.?$/.test(message)) return 'lost';
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NOT_SENT_CODES.has(code)) return 'not_sent';
    if (LOST_CODES.has(code)) return 'lost';
  }
  return NOT_SENT_MESSAGES.some((pattern) => pattern.test(message)) ? 'not_sent' : null;
}

/** Whether a call that failed with `kind` may be sent again: it did not run, or it is a read. */
export function mayRetry(kind: RedisErrorKind, read: boolean): boolean {
  if (kind === 'timeout' || kind === 'refused') return false;
  return kind !== 'lost' || read;
}

/** Whether a write that failed with `kind` may have taken effect, so its outcome is unknown. */
export function outcomeUnknown(kind: RedisErrorKind): boolean {
  return kind === 'timeout' || kind === 'lost';
}

const DESCRIPTIONS: Record<RedisFailure, string> = {
  timeout: 'The store did not answer in time; whether this request took effect is unknown. Retry it: a retry reads the outcome.',
  unavailable: 'The store is not reachable. Retry later.',
};

/**
 * A store call that Redis could not answer: 503 `temporarily_unavailable`, answered with
 * `Retry-After` by the HTTP error handler (`redisFailureOf` reads {@link failure}).
 * `timeout` when a write may have taken effect (the outcome is unknown), `unavailable` when it
 * did not run.
 *
 * @see RFC 6749 §5.2, CIBA Core 1.0 §13 (`temporarily_unavailable`)
 */
export class StoreUnavailableError extends CountersignError {
  readonly failure: RedisFailure;

  constructor(failure: RedisFailure, cause: unknown) {
    super('temporarily_unavailable', DESCRIPTIONS[failure], { cause });
    this.failure = failure;
  }
}

/**
 * What rejects a store call still waiting when its deadline passes (queued behind a stuck pipeline,
 * in the offline queue, or on the wire): it may yet run, so it is an unknown outcome.
 */
export class StoreDeadlineError extends Error {
  override readonly name = 'StoreDeadlineError';
}
