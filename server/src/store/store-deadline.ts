import { AsyncLocalStorage } from 'node:async_hooks';
import { performance } from 'node:perf_hooks';

/**
 * One deadline shared by every store call of one unit of work (an HTTP request, a job, a tick),
 * held in an `AsyncLocalStorage`: a call reads it, it is never passed through function arguments.
 * Times are milliseconds on the monotonic clock (`performance.now()`): a deadline is about real
 * elapsed time, as the Redis command timeout it mirrors is, so a test's injected wall clock must
 * not move it.
 */
export interface StoreDeadline {
  /** When the work's store calls must have answered, on `performance.now()`'s clock. */
  readonly at: number;
  /** Set once the work has returned: its detached continuations get a deadline per call instead. */
  ended: boolean;
  /** Rejects at `at`; created by the first call that has to wait for Redis, so one timer per unit of work. */
  expired: Promise<never> | undefined;
  timer: NodeJS.Timeout | undefined;
  reject: ((error: Error) => void) | undefined;
}

const storage = new AsyncLocalStorage<StoreDeadline>();

/**
 * Runs `work` with one store deadline `ms` from now: every Redis store call it makes (directly or
 * through the functions it awaits) shares it, whether it waits on the socket, behind an
 * in-flight pipeline or in the offline queue. A call made after the deadline rejects at once
 * without being sent; one still waiting at the deadline rejects then (`RedisStore` turns both into
 * 503 `temporarily_unavailable`, see docs/reliability.md "Redis errors and deadlines").
 *
 * @param ms the Redis command timeout (`REDIS_COMMAND_TIMEOUT_MS`), in milliseconds.
 * @returns what `work` returns; its timer is cleared when it settles.
 */
export async function runWithStoreDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const deadline: StoreDeadline = { at: performance.now() + ms, ended: false, expired: undefined, timer: undefined, reject: undefined };
  try {
    return await storage.run(deadline, work);
  } finally {
    deadline.ended = true;
    if (deadline.timer) clearTimeout(deadline.timer);
  }
}

/** The deadline of the unit of work this call runs in, or undefined outside one (or after it returned). */
export function currentStoreDeadline(): StoreDeadline | undefined {
  const deadline = storage.getStore();
  return deadline && !deadline.ended ? deadline : undefined;
}

/**
 * A promise that rejects with `error()` when `deadline` passes: one per deadline, whatever the
 * number of calls racing it, so a request's store calls add a `Promise.race` each, not a timer each.
 */
export function deadlineExpiry(deadline: StoreDeadline, error: () => Error): Promise<never> {
  if (!deadline.expired) {
    deadline.expired = new Promise<never>((_, reject) => {
      deadline.reject = reject;
    });
    // Nobody may be racing it when it fires (the calls answered): that is not an unhandled rejection.
    deadline.expired.catch(ignore);
    deadline.timer = setTimeout(expire, Math.max(0, deadline.at - performance.now()), deadline, error);
    deadline.timer.unref();
  }
  return deadline.expired;
}

function expire(deadline: StoreDeadline, error: () => Error): void {
  deadline.reject?.(error());
}

function ignore(): void {}
