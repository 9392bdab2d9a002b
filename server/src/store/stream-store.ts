import type { Fields } from './record-store.ts';

/** One entry of a stream: its id (`<ms>-<seq>`, increasing in the order of appends) and its fields, in the order written. */
export interface StreamEntry {
  id: string;
  fields: Fields;
}

/**
 * Where {@link StreamStore.streamAppendManyAfter} also records one entry's new id: the string `key`, which
 * holds the ids appended so far separated by single spaces (read with {@link StreamStore.streamIndexRead}),
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
 * The answer of {@link StreamStore.streamAppendManyAfter}: the new entries' ids in order; or the newest
 * entry that is there instead; or, when the tail matched, the position of the first entry whose
 * `once` token its index holds already (nothing written).
 */
export type StreamAppendManyResult = { ok: true; ids: string[] } | { ok: false; last: StreamEntry | null } | { ok: false; duplicate: number };

/**
 * The hash {@link StreamStore.streamTrimBefore} writes in the same atomic step as the trim (the audit
 * chain's retention anchor): `key` must carry the stream key's hash tag, `fields` must hold `id`,
 * and the write happens only while the hash's `id` field is still `ifId` (null: while it has none).
 */
export interface StreamMark {
  key: string;
  ifId: string | null;
  fields: Fields;
}

/** The answer of {@link StreamStore.streamTrimBefore}: how many entries went, or the mark as it is instead. */
export type StreamTrimResult = { ok: true; trimmed: number } | { ok: false; mark: Fields | null };

/**
 * Streams: append-only logs that are kept (the audit chain), appended after a known tail so a hash
 * chain never forks, read by id, by index and by page, and trimmed from the oldest end.
 *
 * One capability of the `Store` (`types.ts`): every operation on one key is atomic, and no
 * operation touches more than one key (or keys of one hash tag), so every one works on Redis Cluster.
 * Keys are logical (see `keys.ts`); TTLs are in seconds and only collect garbage.
 */
export interface StreamStore {
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
   * that holds a list (the layout before the string one) is converted first, in the same step: a
   * reader of the layout the November 2026 release replaced, kept for one release as the README's
   * "Upgrading" promises, and in the store because only the append's own atomic step can convert an
   * index without losing an id appended meanwhile (Redis only: a memory store holds no old layout).
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
   * The stream ids an index of {@link StreamStore.streamAppendManyAfter} holds, in the order appended
   * (empty when there is none). Reads a list index of the earlier layout too (one release, as above).
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
}
