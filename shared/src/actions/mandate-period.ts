/** The periods a mandate's total and count may renew in: UTC calendar days, ISO weeks (from Monday) and months. */
export const MANDATE_PERIODS = ['day', 'week', 'month'] as const;
/** One of {@link MANDATE_PERIODS}. */
export type MandatePeriod = (typeof MANDATE_PERIODS)[number];

const DAY_MS = 86_400_000;

/**
 * The UTC calendar period holding `atMs`: `[start, end)` in epoch milliseconds. A day runs from
 * 00:00 UTC, a week from Monday 00:00 UTC (ISO 8601 §3.2.2), a month from its first day. Calendar
 * periods, not rolling windows: "EUR 200 a month" renews on the 1st, as a person reads it.
 */
export function periodAt(atMs: number, period: MandatePeriod): { start: number; end: number } {
  const at = new Date(atMs);
  const midnight = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  switch (period) {
    case 'day':
      return { start: midnight, end: midnight + DAY_MS };
    case 'week': {
      const start = midnight - ((at.getUTCDay() + 6) % 7) * DAY_MS;
      return { start, end: start + 7 * DAY_MS };
    }
    case 'month':
      return { start: Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), 1), end: Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1) };
  }
}

/**
 * How many periods `[startMs, endMs)` touches, the first and last counted whole: how many times a
 * per-period total can be spent in all, which is what the policy weighs a mandate by.
 */
export function periodsTouched(startMs: number, endMs: number, period: MandatePeriod): number {
  if (endMs <= startMs) return 0;
  const first = periodAt(startMs, period).start;
  const last = periodAt(endMs - 1, period).start;
  if (period !== 'month') return Math.round((last - first) / (period === 'day' ? DAY_MS : 7 * DAY_MS)) + 1;
  const a = new Date(first);
  const b = new Date(last);
  return (b.getUTCFullYear() - a.getUTCFullYear()) * 12 + (b.getUTCMonth() - a.getUTCMonth()) + 1;
}
