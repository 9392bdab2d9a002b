import type { RateEntry } from './types.ts';

/**
 * The generic cell rate algorithm's two constants for a {@link RateEntry}, in whole milliseconds:
 * `step`, the time one call uses up (`windowMs / count`, rounded up so the rate is never above
 * the one asked), and `span`, how far ahead of now the schedule may run (`count` steps: a burst of
 * `count` calls at once fits, the next waits one step).
 *
 * @throws RangeError when `nowMs` is not a safe integer ≥ 0, or `count` or `windowMs` not a safe integer ≥ 1.
 */
export function rateSteps(entry: RateEntry): { step: number; span: number } {
  for (const [name, value, min] of [
    ['nowMs', entry.nowMs, 0],
    ['count', entry.count, 1],
    ['windowMs', entry.windowMs, 1],
  ] as const) {
    if (!Number.isSafeInteger(value) || value < min) throw new RangeError(`${name} must be a safe integer ≥ ${min}, got ${value}`);
  }
  const step = Math.ceil(entry.windowMs / entry.count);
  return { step, span: step * entry.count };
}

/**
 * One GCRA decision, as the Lua of `redis-scripts.ts` makes it: from the stored theoretical arrival
 * time `tat` (epoch ms; null or not a number when there is none), the call at `nowMs` moves it to
 * `next`, and fits when `next` is at most `span` ahead of now; otherwise `over` is how many ms
 * early it came.
 */
export function rateDecision(tat: number | null, nowMs: number, steps: { step: number; span: number }): { next: number; over: number } {
  const from = tat !== null && Number.isFinite(tat) && tat > nowMs ? tat : nowMs;
  const next = from + steps.step;
  return { next, over: Math.max(0, next - nowMs - steps.span) };
}
