import { Cluster, type Redis } from 'ioredis';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from './redis-connect.ts';
import { mayRetry, outcomeUnknown, redisErrorKind, StoreDeadlineError, StoreUnavailableError, type RedisErrorKind } from './redis-failures.ts';
import { currentStoreDeadline, deadlineExpiry, type StoreDeadline } from './store-deadline.ts';
import type { Store } from './types.ts';

/**
 * The store operations that only read. Any other is a write, retried only where it cannot have
 * run. Each write of `RedisStore` is one command or one script, so sending it again after an
 * error that proves it did not run (MOVED, NOSCRIPT, …) is sending it once.
 */
export const READ_OPERATIONS: ReadonlySet<keyof Store> = new Set<keyof Store>(['time', 'get', 'hashGet', 'hashGetField', 'hashLength', 'sortedWindowMembers', 'setMembers', 'sortedRangeByScore', 'streamGet', 'streamIndexRead', 'streamRange', 'streamPendingCount', 'streamLength']);

/** Attempts of one store call at most, the first included. */
const MAX_ATTEMPTS = 4;
/** Milliseconds before the second, third, … attempt after a "not now" answer (ioredis waits 100 ms for TRYAGAIN). */
const BACKOFF_MS = [25, 100, 250];

/** What the guard of one store needs of its client. */
interface GuardState {
  cluster: Cluster | null;
  /** The command timeout: the deadline of a call made outside any unit of work. */
  timeoutMs: number;
  /** Told of every Redis error a call meets, retried or not (the metrics' `countersign_store_errors_total`). */
  onError?: (kind: RedisErrorKind | 'deadline' | 'other') => void;
}

const STATES = new WeakMap<object, GuardState>();

/** Registers the client of `store` for {@link guardStoreMethods}; `RedisStore`'s constructor calls it. */
export function registerGuard(store: object, redis: Redis | Cluster): void {
  const cluster = redis instanceof Cluster ? redis : null;
  const timeoutMs = (cluster ? cluster.options.redisOptions?.commandTimeout : (redis as Redis).options.commandTimeout) ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS;
  STATES.set(store, { cluster, timeoutMs });
}

/**
 * Tells `observer` of every Redis error the calls of `store` meet, by kind, those retried
 * included: `deadline` for a call still waiting when its unit of work's deadline passed, `other`
 * for an error that is not Redis being unavailable (a script error, a bug). Does nothing for a
 * store that is not a `RedisStore`.
 */
export function observeStoreErrors(store: object, observer: (kind: RedisErrorKind | 'deadline' | 'other') => void): void {
  const state = STATES.get(store);
  if (state) state.onError = observer;
}

/**
 * Wraps every operation of a store class (its prototype's methods but `close`) so that a Redis
 * failure is an answer: retried where that is safe, otherwise a {@link StoreUnavailableError}
 * (503 `temporarily_unavailable`), and never later than the deadline of the unit of work it is
 * part of (`runWithStoreDeadline`; outside one, its own deadline of the command timeout).
 *
 * Why here and not in ioredis: with `enableAutoPipelining` every command travels in a pipeline,
 * and ioredis (6.0.0, `built/Pipeline.js` `fillResult`) follows a cluster redirection for a
 * pipeline only when every error in it has the same name and message and every command that
 * succeeded is read-only. Two commands for two slots of a failed-over master get `MOVED 1 …` and
 * `MOVED 2 …`, which differ, so neither is retried, the slot map is left as it was and
 * `refreshSlotsCache` is not called (only `Cluster#sendCommand` without a pipeline does so for
 * each command, `built/cluster/index.js`), and no periodic refresh runs (`slotsRefreshInterval`
 * is off by default): the stale map stays until something else refreshes it. The retry of a
 * pipeline also re-creates each command's promise (`initPromise`), which drops the NOSCRIPT
 * fallback a `defineCommand` script attaches to it (`built/Script.js`), so NOSCRIPT escapes too.
 * Here the first MOVED refreshes the map, and each call is retried on its own ({@link alone}).
 *
 * The hot path costs an `AsyncLocalStorage` read, one `Promise.race` against the unit's one timer,
 * and the method's arguments as an array: no closure and no timer per call inside a request.
 */
export function guardStoreMethods(prototype: object): void {
  for (const name of Object.getOwnPropertyNames(prototype)) {
    if (name === 'constructor' || name === 'close') continue;
    const descriptor = Object.getOwnPropertyDescriptor(prototype, name);
    if (typeof descriptor?.value !== 'function') continue;
    const original = descriptor.value as (...args: unknown[]) => Promise<unknown>;
    const read = READ_OPERATIONS.has(name as keyof Store);
    Object.defineProperty(prototype, name, {
      ...descriptor,
      value: function guarded(this: object, ...args: unknown[]) {
        return callGuarded(this, original, args, read);
      },
    });
  }
}

async function callGuarded(store: object, original: (...args: unknown[]) => Promise<unknown>, args: unknown[], read: boolean): Promise<unknown> {
  const state = STATES.get(store)!;
  const shared = currentStoreDeadline();
  const deadline = shared ?? ownDeadline(state.timeoutMs);
  try {
    for (let attempt = 1; ; attempt++) {
      // Past the deadline nothing is sent: the unit of work has already failed.
      if (performance.now() >= deadline.at) throw new StoreUnavailableError('unavailable', new StoreDeadlineError('store deadline passed before the call'));
      try {
        const sent = attempt > 1 && state.cluster ? alone(state.cluster, store, original, args) : original.apply(store, args);
        return await Promise.race([sent, deadlineExpiry(deadline, deadlinePassed)]);
      } catch (error) {
        // Still waiting at the deadline: it may yet run (on the wire, or queued to go). Said even of
        // a read: the calls a request has in flight with it, which fail at the same moment, may be writes.
        if (error instanceof StoreDeadlineError) {
          state.onError?.('deadline');
          throw new StoreUnavailableError('timeout', error);
        }
        const kind = redisErrorKind(error);
        state.onError?.(kind ?? 'other');
        if (kind === null) throw error;
        if (!mayRetry(kind, read) || attempt === MAX_ATTEMPTS || !(await recover(kind, state, deadline, attempt))) {
          throw new StoreUnavailableError(kind === 'timeout' || (!read && outcomeUnknown(kind)) ? 'timeout' : 'unavailable', error);
        }
      }
    }
  } finally {
    if (!shared && deadline.timer) clearTimeout(deadline.timer);
  }
}

/**
 * Gets ready to send a call again after `kind`: refreshes a cluster's slot map (MOVED, and the
 * errors a failover gives), or waits a little (not now, not sent, lost). Answers false when the
 * deadline would pass first, so the call fails now rather than at the deadline.
 */
async function recover(kind: RedisErrorKind, state: GuardState, deadline: StoreDeadline, attempt: number): Promise<boolean> {
  if (kind === 'noscript') return true;
  if (state.cluster && kind !== 'ask') {
    // Deduplicated by ioredis (`isRefreshing`): a burst of MOVED replies costs one CLUSTER SLOTS.
    const refreshed = new Promise<void>((resolve) => state.cluster!.refreshSlotsCache(() => resolve()));
    if (kind === 'moved') {
      await Promise.race([refreshed, deadlineExpiry(deadline, deadlinePassed)]).catch(ignore);
      return performance.now() < deadline.at;
    }
  }
  const wait = BACKOFF_MS[attempt - 1] ?? BACKOFF_MS.at(-1)!;
  if (performance.now() + wait >= deadline.at) return false;
  await sleep(wait);
  return true;
}

/**
 * Calls `original` with auto-pipelining off for the commands it issues before its first `await`
 * (each store method issues its one command there): a retry then travels on its own through
 * `Cluster#sendCommand`, which follows MOVED (updating the slot) and ASK (with ASKING, to the
 * importing node) for that command alone, whatever other commands of the same tick do. In a
 * pipeline ioredis follows neither unless every error in it is the same (see
 * {@link guardStoreMethods}), which calls for two migrating slots never are. ioredis reads the
 * option at each call (`shouldUseAutoPipelining`), and nothing else runs in between.
 */
function alone(cluster: Cluster, store: object, original: (...args: unknown[]) => Promise<unknown>, args: unknown[]): Promise<unknown> {
  const options = cluster.options;
  const pipelining = options.enableAutoPipelining;
  options.enableAutoPipelining = false;
  try {
    return original.apply(store, args);
  } finally {
    options.enableAutoPipelining = pipelining;
  }
}

/** The deadline of a call made outside any unit of work (start-up, the CLI, detached work): its own timer. */
function ownDeadline(timeoutMs: number): StoreDeadline {
  return { at: performance.now() + timeoutMs, ended: false, expired: undefined, timer: undefined, reject: undefined };
}

function deadlinePassed(): Error {
  return new StoreDeadlineError('store deadline passed while waiting for Redis');
}

function ignore(): void {}
