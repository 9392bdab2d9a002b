import { targets } from '../config.ts';
import type { Measured } from '../context.ts';
import type { TargetResult } from './report.ts';

/** The target's name for each kind of delivery (docs/performance.md "Against the targets"). */
const NAMES = { push: 'request to push at the receiver', ping: 'approval to ping' } as const;

/**
 * The delivery targets, one per row that timed one (`Measured.delivery`): p50 and p99 within
 * `targets.deliveryP50Ms` / `deliveryP99Ms`, every message arrived, and the paced rate held (a
 * server that fell behind its schedule would show it in the row's own latency, not in these).
 */
export function deliveryTargets(rows: Measured[]): TargetResult[] {
  return rows.flatMap(({ delivery, rate, rps }) => {
    // A quarter-peak run is reported in its row, not judged: the targets are at half the peak.
    if (!delivery || delivery.share === 'quarter') return [];
    const { p50, p99 } = delivery.latency;
    const lost = delivery.expected - delivery.arrived;
    return [
      {
        name: `${NAMES[delivery.kind]} p50 ≤ ${targets.deliveryP50Ms} ms, p99 ≤ ${targets.deliveryP99Ms} ms`,
        goal: `at ${rate ?? '?'} req/s (half the peak)`,
        value: `p50 ${p50} ms, p99 ${p99} ms (${delivery.arrived} of ${delivery.expected} arrived)`,
        met: p50 <= targets.deliveryP50Ms && p99 <= targets.deliveryP99Ms && lost === 0 && rps >= 0.95 * (rate ?? 0),
      },
    ];
  });
}
