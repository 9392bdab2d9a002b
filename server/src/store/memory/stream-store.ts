/** The `StreamStore` operations of `MemoryStore` (memory-store.ts): append-only streams. */
import { checkManyEntries, checkTrim, indexIds, parseStreamId } from '../stream-index.ts';
import type { Fields, StreamAppendManyResult, StreamEntry, StreamIndex, StreamMark, StreamTrimResult } from '../types.ts';
import type { MemoryState } from './state.ts';

export function streamAppend(s: MemoryState, key: string, fields: Fields): string {
  return appendOne(s, key, fields);
}

function appendOne(s: MemoryState, key: string, fields: Fields): string {
  if (Object.keys(fields).length === 0) throw new RangeError('streamAppend needs at least one field');
  const stream = s.ensure(key, 'stream', () => ({ entries: [], lastMs: 0, lastSeq: -1 })).value;
  // As XADD *: the clock's milliseconds, and a sequence number while the clock stands still or goes back.
  const now = Math.floor(s.now());
  if (now > stream.lastMs) [stream.lastMs, stream.lastSeq] = [now, 0];
  else stream.lastSeq += 1;
  const id = `${stream.lastMs}-${stream.lastSeq}`;
  stream.entries.push({ id, fields: { ...fields } });
  return id;
}

export function streamAppendManyAfter(s: MemoryState, key: string, lastId: string | null, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): StreamAppendManyResult {
  checkManyEntries(key, entries, indexes);
  const newest = s.of(key, 'stream')?.value.entries.at(-1) ?? null;
  if ((newest?.id ?? null) !== lastId) return { ok: false, last: newest ? { id: newest.id, fields: { ...newest.fields } } : null };
  // An index key of another type throws (WRONGTYPE) here, before anything is written.
  for (const index of indexes) if (index) s.of(index.key, 'string');
  // An entry whose once-token its index holds was appended before: nothing is written.
  // So is the second of two entries of one batch with the same token.
  const seen = new Set<string>();
  const duplicate = indexes.findIndex((index) => {
    if (index?.once === undefined) return false;
    const token = `${index.key}#${index.once}`;
    if (seen.has(token) || ` ${s.of(index.key, 'string')?.value ?? ''} `.includes(`#${index.once} `)) return true;
    seen.add(token);
    return false;
  });
  if (duplicate !== -1) return { ok: false, duplicate };
  // Checked, appended and indexed in one synchronous step: nothing can append in between.
  const ids = entries.map((fields) => appendOne(s, key, fields));
  ids.forEach((id, i) => {
    const index = indexes[i];
    if (!index) return;
    // The ids separated by spaces, as the Redis store keeps them (see `StreamIndex`).
    const text = s.ensure(index.key, 'string', () => '');
    const word = index.once === undefined ? id : `${id}#${index.once}`;
    text.value = text.value === '' ? word : `${text.value} ${word}`;
    s.touch(index.key, index.ttlSeconds);
  });
  return { ok: true, ids };
}

export function streamGet(s: MemoryState, key: string, ids: readonly string[]): (StreamEntry | null)[] {
  const entries = s.of(key, 'stream')?.value.entries ?? [];
  return ids.map((id) => {
    const wanted = parseStreamId(id);
    // Entries are in id order: a binary search, as a chain grows without bound.
    let [low, high] = [0, entries.length];
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (compareStreamIds(parseStreamId(entries[middle]!.id), wanted) < 0) low = middle + 1;
      else high = middle;
    }
    const found = entries[low];
    return found && found.id === `${wanted[0]}-${wanted[1]}` ? { id: found.id, fields: { ...found.fields } } : null;
  });
}

export function streamIndexRead(s: MemoryState, key: string): string[] {
  const text = s.of(key, 'string')?.value ?? '';
  return text === '' ? [] : indexIds(text.split(' '));
}

export function streamRange(s: MemoryState, key: string, afterId?: string, count?: number): StreamEntry[] {
  if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
  const entries = s.of(key, 'stream')?.value.entries ?? [];
  const after = afterId === undefined ? null : parseStreamId(afterId);
  const later =
    after === null
      ? entries
      : entries.filter(({ id }) => {
          const [ms, seq] = parseStreamId(id);
          return ms > after[0] || (ms === after[0] && seq > after[1]);
        });
  return later.slice(0, count ?? later.length).map((entry) => ({ id: entry.id, fields: { ...entry.fields } }));
}

export function streamTrimBefore(s: MemoryState, key: string, minId: string, mark: StreamMark): StreamTrimResult {
  checkTrim(key, minId, mark);
  // Type errors (WRONGTYPE) first, before anything is written.
  const current = s.of(mark.key, 'hash')?.value;
  const stream = s.of(key, 'stream')?.value;
  const markNow = () => (current && current.size > 0 ? Object.fromEntries(current) : null);
  const min = parseStreamId(minId);
  if ((current?.get('id') ?? null) !== mark.ifId) return { ok: false, mark: markNow() };
  if (!stream?.entries.some(({ id }) => compareStreamIds(parseStreamId(id), min) === 0)) return { ok: false, mark: markNow() };
  // Checked, trimmed and marked in one synchronous step, as the Lua does.
  const before = stream.entries.length;
  stream.entries = stream.entries.filter(({ id }) => compareStreamIds(parseStreamId(id), min) >= 0);
  const hash = s.ensure(mark.key, 'hash', () => new Map()).value;
  for (const [field, value] of Object.entries(mark.fields)) hash.set(field, value);
  return { ok: true, trimmed: before - stream.entries.length };
}
/** Orders two parsed stream ids as Redis does: by milliseconds, then by sequence. */
export function compareStreamIds(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
