import type { LatencySummary } from './spec.ts';

/** The `p`th percentile of ascending `sorted` (nearest rank), 0 for none. */
function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

/** Percentiles, maximum and mean of latencies in milliseconds, rounded to the microsecond. */
export function summarise(values: number[]): LatencySummary {
  const list = Array.from(Float64Array.from(values).sort());
  const round = (ms: number) => Math.round(ms * 1000) / 1000;
  return {
    p50: round(percentile(list, 50)),
    p90: round(percentile(list, 90)),
    p99: round(percentile(list, 99)),
    p999: round(percentile(list, 99.9)),
    max: round(list.at(-1) ?? 0),
    mean: round(list.reduce((a, b) => a + b, 0) / (list.length || 1)),
  };
}
