/**
 * One entry offered to a sliding window ({@link WindowStore.windowAdd}). Times are epoch milliseconds;
 * amounts are whole units (the velocity limits: minor units) per name of three upper-case letters
 * (the caller's currency codes; the store checks only that its layout can spell them).
 */
export interface WindowEntry {
  /** The clock: the entry's time, and what the window slides with. */
  nowMs: number;
  /** An entry counts while its time is greater than `nowMs - windowMs`; older ones are dropped. */
  windowMs: number;
  /** The entry's id: what {@link WindowStore.windowRemove} takes back. */
  member: string;
  /** What the entry weighs, per currency (minor units, non-negative safe integers). */
  amounts?: Record<string, number>;
  /** How many entries the window may hold, this one included. */
  maxCount: number;
  /** Per currency: the total the window may hold, this entry included. Currencies not named are not limited. */
  maxAmounts?: Record<string, number>;
}

/**
 * One member offered to a counted window kept as a sorted set ({@link WindowStore.sortedWindowAdd}).
 * Times are epoch milliseconds.
 */
export interface SortedWindowEntry {
  /** The clock. */
  nowMs: number;
  /** A member counts while its score is greater than `nowMs - windowMs`; older ones are dropped. */
  windowMs: number;
  /** The member (an `auth_req_id`); adding one that is there scores it again. */
  member: string;
  /** The member's score, `nowMs` by default; a future deadline with `windowMs: 0` counts until then. */
  score?: number;
  /** How many members the window may hold, this one included. */
  maxCount: number;
}

/** The answer of {@link WindowStore.sortedWindowAdd}. */
export interface SortedWindowResult {
  /** True when the member fitted and was added (or was there and was scored again). */
  ok: boolean;
  /** Members in the window: after the add when `ok`, else as they stand. */
  count: number;
}

/** The answer of {@link WindowStore.windowAdd}. */
export interface WindowResult {
  /** True when the entry fitted and was added. */
  ok: boolean;
  /** Entries in the window: after the add when `ok`, else as they stand without this one. */
  count: number;
  /** Totals per currency, likewise (currencies with a total of 0 are left out). */
  totals: Record<string, number>;
  /** When not `ok`: which limit the entry would have broken (the count is checked first). */
  exceeded?: 'count' | 'amount';
}

/**
 * One call offered to a rate limit ({@link WindowStore.rateLimit}): at most `count` calls per `windowMs`,
 * all at once or spread out. Times are epoch milliseconds from the caller's (injected) clock.
 */
export interface RateEntry {
  /** The clock. */
  nowMs: number;
  /** Calls per window, and the largest burst; ≥ 1. */
  count: number;
  /** The window, ms; ≥ 1. */
  windowMs: number;
  /** Only ask whether a call would fit now; count nothing and write nothing. */
  peek?: boolean;
}

/** The answer of {@link WindowStore.rateLimit}. */
export interface RateResult {
  /** True when the call fits (and, unless `peek`, was counted). */
  ok: boolean;
  /** When not `ok`: ms until a call would fit; 0 when `ok`. */
  retryAfterMs: number;
}

/**
 * Rate windows: sliding windows with counts and amounts (velocity limits), counted windows of
 * members (pending requests, pushes), and the GCRA rate limit.
 *
 * One capability of the `Store` (`types.ts`): every operation on one key is atomic, and no
 * operation touches more than one key (or keys of one hash tag), so every one works on Redis Cluster.
 * Keys are logical (see `keys.ts`); TTLs are in seconds and only collect garbage.
 */
export interface WindowStore {
  /**
   * The sliding-window limit with amounts (the velocity limits), in one atomic step on one key:
   * drops the entries that left the window, and adds one entry, at `nowMs`, only when the count and
   * every limited currency's total stay within `maxCount` and `maxAmounts` with it. Entries leave in
   * the order they came (a queue), so a call costs O(1) per entry it adds or drops, whatever the
   * window holds; an entry that came later with an earlier time (another instance's clock, a few ms
   * behind) leaves with the one before it, a little late, never early (but the key's TTL is set from
   * the caller's clock, so an instance whose clock runs ahead by a few ms can let a whole idle window
   * expire that much early). {@link WindowStore.windowRemove} takes an entry back out (a rollback). The
   * TTL follows the newest entry. The key is the store's own (on Redis a list: a header of running
   * totals, then the entries), to be read and written through these two operations only. Each call
   * adds an entry: a member added twice counts twice.
   * @throws RangeError when a time or count is not a safe integer ≥ 0, an amount not a non-negative
   *   safe integer under a name of three upper-case letters, or `member` empty.
   */
  windowAdd(key: string, entry: WindowEntry): Promise<WindowResult>;
  /**
   * Takes the newest entry of `member` out of a window kept by {@link WindowStore.windowAdd}, in one
   * atomic step; answers whether one was there. It looks from the newest entry back, so taking back
   * the entry just added (the rollback it is for) costs O(1). A window left empty is deleted.
   */
  windowRemove(key: string, member: string): Promise<boolean>;
  /**
   * A counted sliding window kept as a sorted set of members by score (a user's pending requests by
   * deadline, their pushes by time), in one atomic step on one key: drops the members whose score
   * is at most `nowMs - windowMs`, then adds `member` (scored `score`, `nowMs` by default) when the
   * count stays within `maxCount` with it. A member that is there is scored again and always fits.
   * The key lives until its highest score leaves the window. O(log n) per member added or dropped.
   * Unlike {@link WindowStore.windowAdd} it keeps no amounts, but members may come with any score (a
   * deadline) and are found by name (the inbox lists them). Read it with
   * {@link WindowStore.sortedWindowMembers}; {@link IndexStore.sortedRemove} takes a member out.
   * @throws RangeError when a time, score or count is not a safe integer (`windowMs`, `maxCount` ≥ 0), or `member` is empty.
   */
  sortedWindowAdd(key: string, entry: SortedWindowEntry): Promise<SortedWindowResult>;
  /**
   * The members of a window kept by {@link WindowStore.sortedWindowAdd} that are in it at `nowMs` (score
   * greater than `nowMs - windowMs`), lowest score first. Reads only; what left is dropped by the next add.
   */
  sortedWindowMembers(key: string, nowMs: number, windowMs: number): Promise<string[]>;

  /**
   * A rate limit in one atomic step on one key: the generic cell rate algorithm (GCRA), which keeps
   * one number per key, the theoretical arrival time of the next call (epoch ms, from the caller's
   * clock). A call fits when the schedule, moved on by `windowMs / count`, stays at most `windowMs`
   * ahead of `nowMs`: `count` calls at once fit, then one every `windowMs / count`. Unlike a fixed
   * window it never lets twice the rate through across a window's edge. A call that fits moves the
   * schedule on (unless `peek`); one that does not writes nothing and answers how long to wait. The
   * key lives only as long as the schedule runs ahead of now (at most `windowMs`), so an idle
   * counter costs nothing. The key is the store's own (a string on Redis), for this operation only.
   * @throws RangeError when `nowMs` is not a safe integer ≥ 0, or `count` or `windowMs` not a safe integer ≥ 1.
   */
  rateLimit(key: string, entry: RateEntry): Promise<RateResult>;
}
