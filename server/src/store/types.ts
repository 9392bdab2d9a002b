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

/** Options of {@link Store.compareAndSet}. */
export interface CompareAndSetOptions {
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
   * Epoch ms, wall clock: a swap that reaches the store after this does nothing and fails with
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

/** The answer of {@link Store.compareAndSet}. */
export interface CasResult {
  /** True when every guard held and the fields were written. */
  ok: boolean;
  /** The record after the call (after the write when `ok`), or null when there is none. */
  fields: Fields | null;
  /** When not `ok`: index of the first guard that failed, or -1 when the record is missing. */
  failedGuard?: number;
}

/**
 * One entry offered to a sliding window ({@link Store.windowAdd}). Times are epoch milliseconds;
 * amounts are minor units, per ISO 4217 currency code.
 */
export interface WindowEntry {
  /** The clock: the entry's time, and what the window slides with. */
  nowMs: number;
  /** An entry counts while its time is greater than `nowMs - windowMs`; older ones are dropped. */
  windowMs: number;
  /** The entry's id: what {@link Store.windowRemove} takes back. */
  member: string;
  /** What the entry weighs, per currency (minor units, non-negative safe integers). */
  amounts?: Record<string, number>;
  /** How many entries the window may hold, this one included. */
  maxCount: number;
  /** Per currency: the total the window may hold, this entry included. Currencies not named are not limited. */
  maxAmounts?: Record<string, number>;
}

/**
 * One member offered to a counted window kept as a sorted set ({@link Store.sortedWindowAdd}).
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

/** The answer of {@link Store.sortedWindowAdd}. */
export interface SortedWindowResult {
  /** True when the member fitted and was added (or was there and was scored again). */
  ok: boolean;
  /** Members in the window: after the add when `ok`, else as they stand. */
  count: number;
}

/** The answer of {@link Store.windowAdd}. */
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

/** The answer of {@link Store.pollThrottle} (CIBA Core §7.3 `interval`, §11 `slow_down`). */
export interface PollResult {
  status: 'ok' | 'slow_down' | 'missing';
  /** The record after the call, or null when missing. */
  fields: Fields | null;
}

/**
 * One call offered to a rate limit ({@link Store.rateLimit}): at most `count` calls per `windowMs`,
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

/** The answer of {@link Store.rateLimit}. */
export interface RateResult {
  /** True when the call fits (and, unless `peek`, was counted). */
  ok: boolean;
  /** When not `ok`: ms until a call would fit; 0 when `ok`. */
  retryAfterMs: number;
}

/** One entry of a stream: its id (`<ms>-<seq>`, increasing in the order of appends) and its fields, in the order written. */
export interface StreamEntry {
  id: string;
  fields: Fields;
}

/**
 * Where {@link Store.streamAppendManyAfter} also records one entry's new id: the string `key`, which
 * holds the ids appended so far separated by single spaces (read with {@link Store.streamIndexRead}),
 * and whose TTL is then reset to `ttlSeconds`. The key must carry the stream key's hash tag (the
 * `{…}` part), so the append and the index stay one atomic step on one Redis Cluster slot.
 *
 * A string, not a list: two ids cost about 100 bytes less as one short string than as a list
 * (a quicklist node and its listpack), and an index is read whole anyway.
 */
export interface StreamIndex {
  key: string;
  ttlSeconds: number;
  /**
   * A token that makes the entry appended at most once: when the index already holds it, nothing
   * of the batch is written and the answer names the entry (`duplicate`). Kept in the index as
   * `<id>#<once>` (readers see the id alone). An event delivered twice (an outbox entry the live
   * path and the reconciler both delivered) is in the chain once. Letters, digits, `.`, `_`, `-`.
   */
  once?: string;
}

/**
 * The answer of {@link Store.streamAppendManyAfter}: the new entries' ids in order; or the newest
 * entry that is there instead; or, when the tail matched, the position of the first entry whose
 * `once` token its index holds already (nothing written).
 */
export type StreamAppendManyResult = { ok: true; ids: string[] } | { ok: false; last: StreamEntry | null } | { ok: false; duplicate: number };

/**
 * The hash {@link Store.streamTrimBefore} writes in the same atomic step as the trim (the audit
 * chain's retention anchor): `key` must carry the stream key's hash tag, `fields` must hold `id`,
 * and the write happens only while the hash's `id` field is still `ifId` (null: while it has none).
 */
export interface StreamMark {
  key: string;
  ifId: string | null;
  fields: Fields;
}

/** The answer of {@link Store.streamTrimBefore}: how many entries went, or the mark as it is instead. */
export type StreamTrimResult = { ok: true; trimmed: number } | { ok: false; mark: Fields | null };

/** The answer of {@link Store.streamClaim}. */
export interface StreamClaimResult {
  /** Where the next claim continues its walk through the group's pending entries; `0-0` once the walk reached the end. */
  cursor: string;
  /** The entries taken over, now pending on the claiming consumer, oldest first. */
  entries: StreamEntry[];
  /** Ids that were pending but whose entry is no longer in the stream; the group forgot them. */
  deleted: string[];
}

/** One consumer of a stream's consumer group, as {@link Store.streamConsumers} answers it. */
export interface StreamConsumer {
  name: string;
  /** Entries delivered to it and not yet acknowledged. */
  pending: number;
  /**
   * Milliseconds since entries were last delivered to it or claimed by it, by the store's clock (a
   * read that finds nothing does not count on Redis 7.0; later versions also count it).
   */
  idleMs: number;
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
   * The atomic poll-rate check of the CIBA token endpoint, on a record with the fields
   * `interval` (seconds) and `next_poll_at` (epoch ms, absent before the first poll). A poll at or
   * after `next_poll_at - leewayMs` is `ok`; an earlier one is `slow_down` and adds 5 s to
   * `interval`. Either way `next_poll_at` becomes `nowMs + interval * 1000`.
   */
  pollThrottle(key: string, nowMs: number, leewayMs?: number): Promise<PollResult>;
  /**
   * The sliding-window limit with amounts (the velocity limits), in one atomic step on one key:
   * drops the entries that left the window, and adds one entry, at `nowMs`, only when the count and
   * every limited currency's total stay within `maxCount` and `maxAmounts` with it. Entries leave in
   * the order they came (a queue), so a call costs O(1) per entry it adds or drops, whatever the
   * window holds; an entry that came later with an earlier time (another instance's clock, a few ms
   * behind) leaves with the one before it, a little late, never early (but the key's TTL is set from
   * the caller's clock, so an instance whose clock runs ahead by a few ms can let a whole idle window
   * expire that much early). {@link Store.windowRemove} takes an entry back out (a rollback). The
   * TTL follows the newest entry. The key is the store's own (on Redis a list: a header of running
   * totals, then the entries), to be read and written through these two operations only. Each call
   * adds an entry: a member added twice counts twice.
   * @throws RangeError when a time or count is not a safe integer ≥ 0, an amount not a non-negative
   *   safe integer under an ISO 4217 code, or `member` empty.
   */
  windowAdd(key: string, entry: WindowEntry): Promise<WindowResult>;
  /**
   * Takes the newest entry of `member` out of a window kept by {@link Store.windowAdd}, in one
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
   * Unlike {@link Store.windowAdd} it keeps no amounts, but members may come with any score (a
   * deadline) and are found by name (the inbox lists them). Read it with
   * {@link Store.sortedWindowMembers}; {@link Store.sortedRemove} takes a member out.
   * @throws RangeError when a time, score or count is not a safe integer (`windowMs`, `maxCount` ≥ 0), or `member` is empty.
   */
  sortedWindowAdd(key: string, entry: SortedWindowEntry): Promise<SortedWindowResult>;
  /**
   * The members of a window kept by {@link Store.sortedWindowAdd} that are in it at `nowMs` (score
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

  /**
   * Appends an entry to a stream (XADD … *), creating the stream; answers the entry's id. Ids
   * increase with every append, even when the clock stands still. Streams take no TTL: they are
   * logs that are kept.
   */
  streamAppend(key: string, fields: Fields): Promise<string>;
  /**
   * Appends all of `entries`, in order, only while the stream's newest entry is still `lastId`
   * (`null`: while the stream is empty or missing), in one atomic step, and answers their ids;
   * otherwise writes none of them and answers the newest entry as it is, so the caller can retry
   * from there without another read. The compare-and-swap that keeps a hash chain from forking when
   * several writers append at once; one round trip for a whole batch of links (the audit chain's
   * group commit).
   *
   * `indexes[i]`, when given, names an index (see {@link StreamIndex}) that receives entry i's new
   * id in the same atomic step (the audit trail's per-request view): an index never names an entry
   * that is not in the stream, and an entry is never appended without its index. An index key
   * that holds a list (the layout before the string one) is converted first, in the same step.
   *
   * @throws RangeError when `entries` is empty, an entry has no field, `indexes` is longer than
   *   `entries`, or an index key does not share the stream key's hash tag.
   * @throws Error (Redis `WRONGTYPE`) when an index key holds neither a string nor a list; nothing is written.
   */
  streamAppendManyAfter(key: string, lastId: string | null, entries: Fields[], indexes?: readonly (StreamIndex | null | undefined)[]): Promise<StreamAppendManyResult>;
  /**
   * The entries of a stream with the given ids, in the order asked, each null when the stream holds
   * no entry with that id (XRANGE key id id, one per id, pipelined).
   *
   * @throws TypeError when an id is not of the form `<ms>-<seq>`.
   */
  streamGet(key: string, ids: readonly string[]): Promise<(StreamEntry | null)[]>;
  /**
   * The stream ids an index of {@link Store.streamAppendManyAfter} holds, in the order appended
   * (empty when there is none). Reads a list index of the earlier layout too.
   */
  streamIndexRead(key: string): Promise<string[]>;
  /**
   * Up to `count` entries (all when absent) whose id is greater than `afterId` (from the start when
   * absent), oldest first: XRANGE key (afterId + COUNT count. Page by passing the last id read.
   */
  streamRange(key: string, afterId?: string, count?: number): Promise<StreamEntry[]>;
  /**
   * Deletes every entry whose id is less than `minId` (XTRIM key MINID = minId), oldest first, and
   * writes `mark.fields` to the hash `mark.key`, in one atomic step; only while the mark's `id` field
   * is still `mark.ifId` and the stream holds an entry with id `minId` (so a trim never empties a
   * stream: its newest entry, which a hash chain's next append links to, stays). Otherwise deletes
   * and writes nothing and answers the mark as it is. The audit retention: the chain's oldest events
   * go, and the head before them (seq and hash of the last one trimmed) is kept as the mark, so what
   * is left still verifies from there.
   *
   * @throws RangeError when `minId` is not `<ms>-<seq>`, the mark's key is not in the stream key's
   *   hash tag, or its fields lack `id`.
   */
  streamTrimBefore(key: string, minId: string, mark: StreamMark): Promise<StreamTrimResult>;

  // A stream read by a consumer group is a work queue (jobs/): each entry goes to one consumer of
  // the group, stays pending on it until acknowledged, and is taken over by another consumer when
  // it has been pending too long (its consumer died). The group is the queue's only reader.
  /**
   * Creates the consumer group `group` of a stream, and the stream when there is none (XGROUP
   * CREATE key group 0 MKSTREAM). The group starts before the first entry, so entries appended
   * before it existed are delivered too. Answers false when the group exists already (BUSYGROUP):
   * safe to call on every start.
   */
  streamGroupCreate(key: string, group: string): Promise<boolean>;
  /**
   * Delivers up to `count` entries that the group has never delivered to `consumer`, oldest first,
   * without blocking (XREADGROUP GROUP group consumer COUNT count STREAMS key >); each stays pending
   * on that consumer until {@link Store.streamAck}. Answers null when the stream or the group does
   * not exist (NOGROUP), so the caller can create it.
   */
  streamGroupRead(key: string, group: string, consumer: string, count: number): Promise<StreamEntry[] | null>;
  /**
   * Acknowledges entries of the group and deletes them from the stream (XACK then XDEL, in one
   * atomic step): a queue keeps only the work still to do. Answers how many were pending.
   */
  streamAck(key: string, group: string, ids: string[]): Promise<number>;
  /**
   * Takes over entries pending on any consumer of the group for at least `minIdleMs` (their consumer
   * stopped, or is stuck), up to `count`, for `consumer`, resetting their idle time (XAUTOCLAIM key
   * group consumer minIdleMs cursor COUNT count). Walks the pending entries from `cursor` (`0-0` by
   * default). Pending entries deleted from the stream meanwhile are dropped from the group and named
   * in `deleted`. Answers null when the stream or the group does not exist.
   */
  streamClaim(key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): Promise<StreamClaimResult | null>;
  /** How many entries are pending on the group's consumers (XPENDING summary); 0 when there is no group. */
  streamPendingCount(key: string, group: string): Promise<number>;
  /**
   * The consumers of the group (XINFO CONSUMERS), in no particular order; [] when the stream or the
   * group does not exist. A consumer exists from the first entry delivered to it or claimed by it
   * until it is removed.
   */
  streamConsumers(key: string, group: string): Promise<StreamConsumer[]>;
  /**
   * Removes a consumer from the group (XGROUP DELCONSUMER) only while it has no pending entries and
   * has been idle for at least `minIdleMs`, checked and removed in one atomic step; answers whether
   * it was removed. Removing a consumer with pending entries would strand them (no consumer holds
   * them to be claimed from), so that is never done.
   *
   * @throws RangeError when `minIdleMs` is not a whole number of milliseconds ≥ 0.
   */
  streamConsumerRemove(key: string, group: string, consumer: string, options: { minIdleMs: number }): Promise<boolean>;

  /** Releases connections. */
  close(): Promise<void>;
}
