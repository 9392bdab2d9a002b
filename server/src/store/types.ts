/** The string fields of one hash record. */
export type Fields = Record<string, string>;

/**
 * One condition of a compare-and-set. Numeric comparisons (`lt`, `gt`) parse the field as a
 * number; a missing field fails every guard but `absent`.
 */
export type Guard =
  | { field: string; op: 'eq' | 'ne'; value: string }
  | { field: string; op: 'lt' | 'gt'; value: number }
  | { field: string; op: 'absent' | 'present' };

/** The answer of {@link Store.compareAndSet}. */
export interface CasResult {
  /** True when every guard held and the fields were written. */
  ok: boolean;
  /** The record after the call (after the write when `ok`), or null when there is none. */
  fields: Fields | null;
  /** When not `ok`: index of the first guard that failed, or -1 when the record is missing. */
  failedGuard?: number;
}

/** The answer of {@link Store.pollThrottle} (CIBA Core §7.3 `interval`, §11 `slow_down`). */
export interface PollResult {
  status: 'ok' | 'slow_down' | 'missing';
  /** The record after the call, or null when missing. */
  fields: Fields | null;
}

/**
 * The storage of Countersign: a few atomic operations, with a Redis implementation (the
 * production store) and an in-memory one (the development default). Every operation on one key
 * is atomic; no operation touches more than one key, so every one works on Redis Cluster.
 *
 * Keys are logical (see `keys.ts`); an implementation adds its own prefix. TTLs are in seconds and
 * only collect garbage: correctness never depends on a key disappearing on time, because every
 * record carries its own deadlines and the gate compares them against an injected clock.
 */
export interface Store {
  readonly kind: 'memory' | 'redis';

  /** A string value, or null. */
  get(key: string): Promise<string | null>;
  /** Writes a string value. With `onlyIfAbsent`, writes only when the key does not exist (SET NX) and answers whether it wrote. */
  set(key: string, value: string, options?: { ttlSeconds?: number; onlyIfAbsent?: boolean }): Promise<boolean>;
  /** Reads and deletes a string value in one step (GETDEL): a single-use value is used once. */
  take(key: string): Promise<string | null>;
  /** Deletes a key of any kind; answers whether it existed. */
  delete(key: string): Promise<boolean>;

  /** Creates a hash record only when the key does not exist; answers whether it did. */
  hashCreate(key: string, fields: Fields, ttlSeconds: number): Promise<boolean>;
  /** All fields of a hash record, or null when there is none. */
  hashGet(key: string): Promise<Fields | null>;
  /** Writes some fields of a hash record (creating it), optionally resetting its TTL. */
  hashSet(key: string, fields: Fields, ttlSeconds?: number): Promise<void>;
  /** Deletes one field of a hash record; answers whether it existed. */
  hashDelete(key: string, field: string): Promise<boolean>;
  /**
   * The compare-and-swap that moves a request: when the record exists and every guard holds,
   * writes `set` (and resets the TTL when `ttlSeconds` is given), in one atomic step.
   */
  compareAndSet(key: string, guards: Guard[], set: Fields, options?: { ttlSeconds?: number }): Promise<CasResult>;
  /**
   * The atomic poll-rate check of the CIBA token endpoint, on a record with the fields
   * `interval` (seconds) and `next_poll_at` (epoch ms, absent before the first poll). A poll at or
   * after `next_poll_at - leewayMs` is `ok`; an earlier one is `slow_down` and adds 5 s to
   * `interval`. Either way `next_poll_at` becomes `nowMs + interval * 1000`.
   */
  pollThrottle(key: string, nowMs: number, leewayMs?: number): Promise<PollResult>;

  /** Adds a member to a set, optionally resetting the set's TTL. */
  setAdd(key: string, member: string, ttlSeconds?: number): Promise<void>;
  /** Removes a member from a set. */
  setRemove(key: string, member: string): Promise<void>;
  /** All members of a set (empty when there is none). */
  setMembers(key: string): Promise<string[]>;

  /**
   * Adds a member to a sorted set with `score` (ZADD), or moves an existing member to the new
   * score; optionally resets the set's TTL. Scores are numbers such as epoch milliseconds.
   */
  sortedAdd(key: string, member: string, score: number, ttlSeconds?: number): Promise<void>;
  /**
   * Up to `limit` members whose score is at most `maxScore` (inclusive), lowest score first and
   * members of equal score in byte order (ZRANGE … BYSCORE LIMIT). The cost follows the members
   * returned, not the size of the set, so a deadline index can be read every second.
   */
  sortedRangeByScore(key: string, maxScore: number, limit: number): Promise<string[]>;
  /** Removes a member from a sorted set (ZREM); answers whether it was there. The last one removes the set. */
  sortedRemove(key: string, member: string): Promise<boolean>;

  /** Appends to a list (append-only log), optionally resetting its TTL. */
  listAppend(key: string, value: string, ttlSeconds?: number): Promise<void>;
  /** The whole list, oldest first. */
  listRange(key: string): Promise<string[]>;

  /** Releases connections. */
  close(): Promise<void>;
}
