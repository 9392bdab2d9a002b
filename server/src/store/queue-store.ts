import type { StreamEntry } from './stream-store.ts';

/** The answer of {@link QueueStore.streamClaim}. */
export interface StreamClaimResult {
  /** Where the next claim continues its walk through the group's pending entries; `0-0` once the walk reached the end. */
  cursor: string;
  /** The entries taken over, now pending on the claiming consumer, oldest first. */
  entries: StreamEntry[];
  /** Ids that were pending but whose entry is no longer in the stream; the group forgot them. */
  deleted: string[];
}

/** One consumer of a stream's consumer group, as {@link QueueStore.streamConsumers} answers it. */
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
 * The work queue: a stream read by a consumer group (jobs/). Each entry goes to one consumer of the
 * group, stays pending on it until acknowledged, and is taken over by another consumer when it has
 * been pending too long (its consumer died). The group is the queue's only reader; entries are
 * appended with {@link StreamStore.streamAppend}.
 *
 * One capability of the `Store` (`types.ts`): every operation on one key is atomic, and no
 * operation touches more than one key (or keys of one hash tag), so every one works on Redis Cluster.
 * Keys are logical (see `keys.ts`); TTLs are in seconds and only collect garbage.
 */
export interface QueueStore {
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
   * on that consumer until {@link QueueStore.streamAck}. Answers null when the stream or the group does
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
  /** How many entries the stream holds (XLEN): for a queue, the jobs queued or running; 0 when there is no stream. */
  streamLength(key: string): Promise<number>;
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
}
