/** The string fields of one hash record. */
export type Fields = Record<string, string>;

/**
 * One condition of a compare-and-set. Numeric comparisons (`lt`, `gt`) parse the field as a
 * number; a missing field fails every guard but `absent`.
 */
export type Guard = { field: string; op: 'eq' | 'ne'; value: string } | { field: string; op: 'lt' | 'gt'; value: number } | { field: string; op: 'absent' | 'present' };

/**
 * A bounded counter of a compare-and-set ({@link CompareAndSetOptions.increments}): the field (a
 * missing one counts as 0) goes up by `by`, only while the result stays at most `max`. A mandate's
 * spent total and spend count (docs/mandates.md) are such counters: checked and raised in the same
 * atomic step, so concurrent spends can never add up past the bound.
 */
export interface BoundedIncrement {
  field: string;
  /** A safe integer ≥ 0. */
  by: number;
  /** A safe integer: the field after the increment must be ≤ this. */
  max: number;
}

/** Options of {@link RecordStore.compareAndSet}. */
export interface CompareAndSetOptions {
  /**
   * Counters raised with the swap, each only within its bound, checked after the guards: one over
   * its bound fails the swap like a guard (nothing written), with `failedGuard` = the number of
   * guards + the increment's index. A counter field that holds no whole number fails its bound.
   */
  increments?: BoundedIncrement[];
  /** Resets the record's TTL, seconds. */
  ttlSeconds?: number;
  /**
   * An outbox entry written in the same atomic step as the swap, only when it applies: the counter
   * field `seq` is incremented (from 0 when absent) and the entry stored as `ob:<seq>`. What must
   * follow a transition (its audit event, its deadlines, the jobs it starts) is then never lost to a
   * crash, a timeout or a failover between the swap and its consequences (docs/reliability.md).
   */
  outbox?: string;
  /**
   * Epoch ms in the store's clock ({@link RecordStore.time}): a swap that reaches the store after this does nothing and fails with
   * {@link LateSwapError} (Redis compares its own clock), so a command that waited in a queue
   * or a paused server cannot apply after its caller gave up. The in-memory store runs every call
   * at once and ignores it.
   */
  notAfterMs?: number;
}

/**
 * A compare-and-swap refused unapplied because it reached the store after its `notAfterMs`.
 * Redis is answering late: the request answers 503 `temporarily_unavailable`.
 */
export class LateSwapError extends Error {
  constructor() {
    super('the state change reached Redis after its deadline; nothing was written');
    this.name = 'LateSwapError';
  }
}

/** The answer of {@link RecordStore.compareAndSet}. */
export interface CasResult {
  /** True when every guard held and the fields were written. */
  ok: boolean;
  /** The record after the call (after the write when `ok`), or null when there is none. */
  fields: Fields | null;
  /** When not `ok`: index of the first guard that failed (guards, then increments after them), or -1 when the record is missing. */
  failedGuard?: number;
}

/**
 * One call offered to a record's spacing ({@link RecordStore.hashThrottle}): calls to one record
 * should come at least one interval apart, and the interval grows by `earlyIncrement` with each call
 * that comes early. Times are epoch milliseconds from the caller's (injected) clock.
 */
export interface ThrottleRule {
  /** The clock. */
  nowMs: number;
  /** The field that holds the interval, a whole number of `unitMs`. */
  intervalField: string;
  /** The field that holds when the next call is due (epoch ms); absent before the first call. */
  nextAtField: string;
  /** Milliseconds per unit of the interval (1000: seconds); ≥ 1. */
  unitMs: number;
  /** The interval of a record whose interval field is absent; ≥ 0. */
  defaultInterval: number;
  /** Added to the interval by a call that comes early; ≥ 0. */
  earlyIncrement: number;
  /** A call this many ms before it is due still counts as on time; ≥ 0, 0 by default. */
  leewayMs?: number;
}

/** The answer of {@link RecordStore.hashThrottle}. */
export interface ThrottleResult {
  /** `early` when the call came more than `leewayMs` before it was due; `missing` when there is no record. */
  status: 'ok' | 'early' | 'missing';
  /** The record after the call, or null when missing. */
  fields: Fields | null;
}

/**
 * Records: string values and hash records, read and written whole or by field, with guarded updates
 * (the compare-and-swap that moves a request).
 *
 * One capability of the `Store` (`types.ts`): every operation on one key is atomic, and no
 * operation touches more than one key (or keys of one hash tag), so every one works on Redis Cluster.
 * Keys are logical (see `keys.ts`); TTLs are in seconds and only collect garbage.
 */
export interface RecordStore {
  /**
   * The store's own clock, epoch ms (Redis `TIME`; the memory store: the wall clock). The deadline
   * of a swap (`CompareAndSetOptions.notAfterMs`) is compared with this clock, so a caller states
   * it in this clock, whatever its own says (`requests/store-clock.ts`).
   */
  time(): Promise<number>;
  /** A string value, or null. */
  get(key: string): Promise<string | null>;
  /** Writes a string value. With `onlyIfAbsent`, writes only when the key does not exist (SET NX) and answers whether it wrote. */
  set(key: string, value: string, options?: { ttlSeconds?: number; onlyIfAbsent?: boolean }): Promise<boolean>;
  /** Reads and deletes a string value in one step (GETDEL): a single-use value is used once. */
  take(key: string): Promise<string | null>;
  /**
   * The compare-and-swap of a string value: writes `value` only while the key holds exactly
   * `expected`, keeping its TTL, in one atomic step; answers whether it wrote. A missing key never
   * matches, so a record deleted meanwhile is not written back. A read-modify-write of a JSON record
   * (a device's signature counter) retries from a fresh read when it answers false.
   */
  replace(key: string, expected: string, value: string): Promise<boolean>;
  /** Deletes a key of any kind; answers whether it existed. */
  delete(key: string): Promise<boolean>;

  /** Creates a hash record only when the key does not exist; answers whether it did. */
  hashCreate(key: string, fields: Fields, ttlSeconds: number): Promise<boolean>;
  /** All fields of a hash record, or null when there is none. */
  hashGet(key: string): Promise<Fields | null>;
  /** One field of a hash record (HGET), or null when the record or the field is missing. */
  hashGetField(key: string, field: string): Promise<string | null>;
  /** How many fields a hash record holds (HLEN); 0 when there is none. */
  hashLength(key: string): Promise<number>;
  /** Writes some fields of a hash record (creating it), optionally resetting its TTL. */
  hashSet(key: string, fields: Fields, ttlSeconds?: number): Promise<void>;
  /** Deletes one field of a hash record; answers whether it existed. */
  hashDelete(key: string, field: string): Promise<boolean>;
  /**
   * The compare-and-swap that moves a request: when the record exists and every guard holds,
   * writes `set` (and resets the TTL when `ttlSeconds` is given, and appends `outbox` as the next
   * `ob:<seq>`), in one atomic step.
   * @throws LateSwapError when `notAfterMs` passed before the call reached the store; nothing was written.
   */
  compareAndSet(key: string, guards: Guard[], set: Fields, options?: CompareAndSetOptions): Promise<CasResult>;
  /**
   * A guarded "next call due at" on a hash record, in one atomic step, so that of concurrent calls
   * only one can see the old due time: a call at or after `nextAtField - leewayMs` is `ok`; an
   * earlier one is `early` and adds `earlyIncrement` to `intervalField`. Either way `nextAtField`
   * becomes `nowMs + interval * unitMs`; the record's TTL is kept. A missing record writes nothing.
   * (The CIBA token endpoint's `interval` and `slow_down` are one such rule: ciba/poll-throttle.ts.)
   * @throws RangeError when a time, interval, increment or leeway is not a safe integer ≥ 0, `unitMs` not ≥ 1, or a field name is empty.
   */
  hashThrottle(key: string, rule: ThrottleRule): Promise<ThrottleResult>;
}
