import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';

/** Clock ticks per second of /proc/stat (USER_HZ, 100 on Linux). */
const USER_HZ = 100;

/** Busy CPU time of the whole machine so far, microseconds (every core; idle and iowait excluded). */
export function machineBusyMicros(): number | null {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
    return ((user + nice + system + irq + softirq + steal) * 1e6) / USER_HZ;
  } catch {
    return null;
  }
}

export const coreCount = cpus().length;

/** The 1-minute load average, for a warning at start when the machine is not idle. */
export function loadAverage(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return 0;
  }
}

/**
 * Waits, up to `maxMs`, for a half-second in which the whole machine was busy less than
 * `threshold` of its cores (call it when the benchmark's own processes are idle): neighbours'
 * bursts then land between runs more often than in them. Answers the milliseconds waited.
 */
export async function waitCalm(maxMs: number, threshold = 0.2): Promise<number> {
  const started = Date.now();
  for (;;) {
    const before = machineBusyMicros();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = machineBusyMicros();
    if (before === null || after === null) return 0;
    const share = (after - before) / (coreCount * 500_000);
    if (share < threshold || Date.now() - started >= maxMs) return Date.now() - started;
  }
}
