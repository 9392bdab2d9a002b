import { targets } from '../config.ts';
import type { MemoryResult } from '../measure/memory.ts';
import type { SweepPoint } from '../measure/sweep.ts';
import { deliveryTargets } from './delivery-targets.ts';
import type { Row, TargetResult } from './report.ts';

const ratio = (value: number | null | undefined) => (value === null || value === undefined ? '—' : `${value} ×`);

/**
 * Every target of docs/performance.md "Against the targets", judged from one run: ratios are taken
 * within the run (the machines' shared cores differ from run to run); the device decision's, which
 * compares with a figure of an earlier run, is judged by server CPU per decision, which moves less
 * with the machine than a rate does.
 */
export function benchTargets(rows: Row[], memory: MemoryResult, sweep: SweepPoint[]): TargetResult[] {
  const row = (key: string) => rows.find((candidate) => candidate.key === key);
  const bc = row('bcAuthorize');
  const peerBc = row('peer.bcAuthorize');
  const redeem = row('redeem');
  const half = row('redeemHalf');
  const healthzPaced = row('healthzPaced');
  const decision = row('decision');
  const results: TargetResult[] = [];
  if (bc) {
    results.push({
      name: '/bc-authorize (no push) ≥ 1 × the peer in memory, ≥ 1.5 × the peer on Redis',
      goal: `≥ ${targets.bcAuthorizeOverPeer} ×, ≥ ${targets.bcAuthorizeOverPeerRedis} ×`,
      value: `${ratio(bc.ratioToPeer)}, ${ratio(bc.ratioToPeerRedis)}`,
      met: (bc.ratioToPeer ?? 0) >= targets.bcAuthorizeOverPeer && (bc.ratioToPeerRedis ?? 0) >= targets.bcAuthorizeOverPeerRedis,
    });
    if (peerBc) {
      results.push({
        name: "its server CPU ≤ the in-memory peer's",
        goal: `≤ ${peerBc.serverCpuMicrosPerRequest} µs`,
        value: `${bc.serverCpuMicrosPerRequest} µs`,
        met: bc.serverCpuMicrosPerRequest <= peerBc.serverCpuMicrosPerRequest,
      });
    }
    results.push({
      name: `≤ ${targets.bcAuthorizeRedisCommands} Redis commands and ≤ ${targets.bcAuthorizeRedisCpuMicros} µs of Redis CPU per /bc-authorize`,
      goal: `≤ ${targets.bcAuthorizeRedisCommands}, ≤ ${targets.bcAuthorizeRedisCpuMicros} µs`,
      value: `${bc.redisCommandsPerRequest ?? '?'} commands, ${bc.redisCpuMicrosPerRequest ?? '?'} µs`,
      met: (bc.redisCommandsPerRequest ?? Infinity) <= targets.bcAuthorizeRedisCommands && (bc.redisCpuMicrosPerRequest ?? Infinity) <= targets.bcAuthorizeRedisCpuMicros,
    });
  }
  if (redeem) {
    results.push({
      name: `/redeem ≥ ${targets.redeemShareOfFloor} × the HTTP floor`,
      goal: `≥ ${targets.redeemShareOfFloor} ×`,
      value: `${redeem.ratioToFloor} × (${redeem.rps} req/s, ${redeem.serverCpuMicrosPerRequest} µs of server CPU each)`,
      met: redeem.ratioToFloor >= targets.redeemShareOfFloor,
    });
  }
  if (decision) {
    results.push({
      name: 'the device decision ≥ 2 × its rate when the target was set',
      goal: `≤ ${targets.decisionCpuMicros} µs of server CPU per decision (half of ${targets.decisionCpuMicros * 2} µs)`,
      value: `${decision.serverCpuMicrosPerRequest} µs (${decision.rps} req/s)`,
      met: decision.serverCpuMicrosPerRequest <= targets.decisionCpuMicros,
    });
  }
  if (half && healthzPaced) {
    results.push({
      name: `/redeem p99 at half its peak ≤ ${targets.redeemP99OverHealthz} × /healthz's paced at the same rate`,
      goal: `≤ ${Math.round(targets.redeemP99OverHealthz * healthzPaced.latency.p99 * 100) / 100} ms at ${half.rate ?? '?'} req/s`,
      value: `${half.latency.p99} ms against ${healthzPaced.latency.p99} ms`,
      met: half.latency.p99 <= targets.redeemP99OverHealthz * healthzPaced.latency.p99 && half.rps >= 0.95 * (half.rate ?? 0),
    });
  }
  results.push(...deliveryTargets(rows));
  results.push({
    name: 'Redis memory per pending request ≤ 2 KB',
    goal: `≤ ${targets.memoryPerPendingBytes} B`,
    value: `${memory.bytesPerPendingRequest} B`,
    met: memory.bytesPerPendingRequest <= targets.memoryPerPendingBytes,
  });
  if (sweep.length > 1) {
    // Following the number due: the same number due costs about the same whatever is alive.
    const costs = sweep.map((point) => point.sweepMs);
    const spread = Math.max(...costs) / Math.max(0.001, Math.min(...costs));
    results.push({
      name: "the expiry sweep's cost follows the number due, not the number alive",
      goal: `${sweep[0]!.due} due with ${sweep.map((point) => point.live).join(', ')} alive: within ${targets.sweepSpread} × of each other`,
      value: sweep.map((point) => `${point.live}: ${point.sweepMs} ms`).join('; '),
      met: spread <= targets.sweepSpread && sweep.every((point) => point.handled === point.due),
    });
  }
  return results;
}
