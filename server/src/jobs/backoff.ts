/** Exponential backoff: 1 s, 2 s, 4 s, 8 s between 5 attempts, about 15 s in all. */
export const DEFAULT_BACKOFF_MS: readonly number[] = [1000, 2000, 4000, 8000];

/**
 * The wait (ms) before the attempt after `attempt` (1 for the first), or null when `attempt` was
 * the last: there is one attempt more than there are waits.
 *
 * @example
 * ```ts
 * backoffDelay(1, DEFAULT_BACKOFF_MS); // 1000: the 2nd attempt 1 s after the 1st
 * backoffDelay(5, DEFAULT_BACKOFF_MS); // null: 5 attempts were made
 * ```
 */
export function backoffDelay(attempt: number, delaysMs: readonly number[]): number | null {
  return delaysMs[attempt - 1] ?? null;
}
