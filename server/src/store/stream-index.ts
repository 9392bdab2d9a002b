import type { Fields, StreamIndex, StreamMark } from './types.ts';

/**
 * A key's Redis Cluster hash tag: the text between the first `{` and the first `}` after it, when
 * that text is not empty; otherwise the whole key, which is what Redis then hashes.
 *
 * @see Redis Cluster specification, "Hash tags"
 */
export function hashTagOf(key: string): string {
  const open = key.indexOf('{');
  if (open === -1) return key;
  const close = key.indexOf('}', open + 1);
  return close > open + 1 ? key.slice(open + 1, close) : key;
}

/**
 * Checks the arguments of `Store.streamAppendManyAfter` the same way for both stores: at least one
 * entry, each with at least one field, no more indexes than entries, and every index key in the
 * stream key's hash tag (so the one script that appends and indexes runs on one Cluster slot), with
 * a positive TTL.
 *
 * @throws RangeError naming what is wrong.
 */
/** What a `StreamIndex.once` token may hold: nothing that separates the words of an index. */
const ONCE_TOKEN = /^[A-Za-z0-9._-]{1,64}$/;

/** The ids of an index's words (`<id>` or `<id>#<once>`), in order. */
export function indexIds(words: readonly string[]): string[] {
  return words.map((word) => {
    const mark = word.indexOf('#');
    return mark === -1 ? word : word.slice(0, mark);
  });
}

export function checkManyEntries(key: string, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): void {
  if (entries.length === 0) throw new RangeError('streamAppendManyAfter needs at least one entry');
  if (entries.some((fields) => Object.keys(fields).length === 0)) throw new RangeError('streamAppendManyAfter needs at least one field in every entry');
  if (indexes.length > entries.length) throw new RangeError('streamAppendManyAfter has more indexes than entries');
  const tag = hashTagOf(key);
  for (const index of indexes) {
    if (!index) continue;
    if (hashTagOf(index.key) !== tag) throw new RangeError(`index key ${index.key} is not in the hash tag of ${key}`);
    if (!(Number.isFinite(index.ttlSeconds) && index.ttlSeconds > 0)) throw new RangeError(`index TTL must be a positive number of seconds, got ${index.ttlSeconds}`);
    if (index.once !== undefined && !ONCE_TOKEN.test(index.once)) throw new RangeError(`invalid once token ${JSON.stringify(index.once)}`);
  }
}

/**
 * Checks the arguments of `Store.streamTrimBefore` the same way for both stores: a well-formed
 * `minId`, a mark in the stream key's hash tag (one script, one Cluster slot), and an `id` in the
 * mark's fields, which the next trim's guard compares.
 *
 * @throws RangeError naming what is wrong.
 */
export function checkTrim(key: string, minId: string, mark: StreamMark): void {
  if (!/^\d+-\d+$/.test(minId)) throw new RangeError(`invalid stream id ${minId}`);
  if (hashTagOf(mark.key) !== hashTagOf(key)) throw new RangeError(`mark key ${mark.key} is not in the hash tag of ${key}`);
  if (!mark.fields.id) throw new RangeError('streamTrimBefore needs an id in the mark');
}

/** A stream id `<ms>-<seq>` as a pair of numbers, for comparing ids as Redis does. */
export function parseStreamId(id: string): [number, number] {
  const match = /^(\d+)-(\d+)$/.exec(id);
  if (!match) throw new TypeError(`invalid stream id ${id}`);
  return [Number(match[1]), Number(match[2])];
}
