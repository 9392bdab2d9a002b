import { intervalTicker, type Logger, type Ticker } from '../runtime/index.ts';
import { keys, type RecordStore } from '../store/index.ts';

/** Options of {@link leaseTicker}. */
export interface LeaseTickerOptions {
  store: RecordStore;
  /** This instance's id, unique per process (the lease's holder). */
  holder: string;
  log: Logger;
  /** The timer underneath; {@link intervalTicker} by default. */
  ticker?: Ticker;
  /** The lease's name; `expiry-sweep` by default. */
  name?: string;
  /** How many ticks a holder that stopped ticking keeps the lease: 3 by default. */
  ticksPerLease?: number;
}

/**
 * A {@link Ticker} that runs `tick` on one instance at a time: on each tick, the instance holding
 * the lease renews it and ticks; the others skip. The lease is a store record with a TTL of a few
 * ticks, so when its holder stops (crash, shutdown) another instance takes it over within that
 * time, without any coordination beyond the store.
 *
 * Both steps are single atomic store operations: taking a free lease is `hashCreate` (create only
 * when absent, with its TTL), renewing one's own is a `compareAndSet` guarded by `holder`. So two
 * instances never both believe they took the lease, and a renewal never steals it back from an
 * instance that took it over. A lease outliving its holder by a moment (a GC pause longer than the
 * TTL) can let two sweeps overlap; that costs only repeated reads, because every transition the
 * expiry sweeper makes is itself a compare-and-swap (`settleExpiry`).
 *
 * A tick whose lease call fails (Redis down) is skipped and logged; the next one tries again.
 *
 * @example Only one of several instances sweeps
 * ```ts
 * createExpirySweeper(() => deps, { ticker: leaseTicker({ store, holder: randomId(9, 'inst_'), log }) });
 * ```
 */
export function leaseTicker(options: LeaseTickerOptions): Ticker {
  const inner = options.ticker ?? intervalTicker;
  const key = keys.lease(options.name ?? 'expiry-sweep');
  const ticksPerLease = options.ticksPerLease ?? 3;
  return (tick, everyMs) => {
    const ttlSeconds = (everyMs * ticksPerLease) / 1000;
    return inner(() => {
      holdLease(options.store, key, options.holder, ttlSeconds).then(
        (held) => {
          if (held) tick();
        },
        (error: unknown) => options.log.warn('lease not checked; tick skipped', { lease: key, error: String(error) }),
      );
    }, everyMs);
  };
}

/**
 * Renews the lease when `holder` has it, takes it when nobody has; answers whether `holder` now
 * holds it for `ttlSeconds`.
 */
export async function holdLease(store: RecordStore, key: string, holder: string, ttlSeconds: number): Promise<boolean> {
  const renewed = await store.compareAndSet(key, [{ field: 'holder', op: 'eq', value: holder }], {}, { ttlSeconds });
  if (renewed.ok) return true;
  // Someone else holds it (the record exists): skip. Nobody does: try to take it.
  if (renewed.fields) return false;
  return store.hashCreate(key, { holder }, ttlSeconds);
}
