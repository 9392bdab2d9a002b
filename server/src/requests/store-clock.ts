import type { Logger } from '../runtime/index.ts';
import type { RecordStore } from '../store/index.ts';

/** How far apart (ms) this instance's clock and the store's may be before it is logged at start. */
const SKEW_WARNING_MS = 1000;
/** How often (ms) the offset is measured again, in the background of a reading. */
const RESYNC_EVERY_MS = 60_000;

/** The store's clock as this instance reads it: its own wall clock plus the measured offset. */
export interface StoreClock {
  /** Epoch ms in the store's clock (`RecordStore.time`), without a round trip. */
  now(): number;
  /** Measures the offset again: one round trip, halved for the way back. */
  sync(): Promise<void>;
}

/**
 * The clock a swap's deadline is stated in (`CompareAndSetOptions.notAfterMs`, checked against
 * Redis's `TIME`): this instance's wall clock corrected by its measured offset to the store's, so an
 * instance whose clock runs a few seconds behind Redis still gets its swaps applied instead of
 * refused as late, and one ahead does not give a stuck swap seconds more than it waited. Measured at
 * start and again every minute; a skew over a second is logged, since the outbox's marks
 * (docs/reliability.md) are scored on the instances' own clocks, which must agree within its 3 s margin.
 *
 * @param wall - the wall clock, `Date.now` by default (injected in tests).
 */
export async function createStoreClock(store: Pick<RecordStore, 'time'>, log: Logger, wall: () => number = Date.now): Promise<StoreClock> {
  let offset = 0;
  let syncedAt = Number.NEGATIVE_INFINITY;
  let syncing: Promise<void> | null = null;
  const sync = async (): Promise<void> => {
    const sent = wall();
    const stored = await store.time();
    const received = wall();
    offset = stored - (sent + received) / 2;
    syncedAt = received;
  };
  await sync();
  if (Math.abs(offset) > SKEW_WARNING_MS) log.warn('this instance’s clock and the store’s are apart; keep the instances on NTP', { offset_ms: Math.round(offset) });
  return {
    now() {
      const now = wall();
      if (now - syncedAt > RESYNC_EVERY_MS && !syncing) {
        syncing = sync()
          .catch(() => undefined)
          .finally(() => {
            syncing = null;
          });
      }
      return Math.round(now + offset);
    },
    sync,
  };
}
