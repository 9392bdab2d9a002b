/**
 * Now on the machine's monotonic clock, in milliseconds with microsecond resolution.
 *
 * `process.hrtime` reads CLOCK_MONOTONIC, which is one clock for every process of the machine
 * (unlike `performance.now()`, whose origin is each process's start): a time taken in the load
 * process and one taken in a receiver of the orchestrator can be subtracted as they are. Through
 * microseconds, so that the number stays exact as a double however long the machine has been up.
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint() / 1000n) / 1000;
}
