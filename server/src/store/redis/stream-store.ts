/** The `StreamStore` operations of `RedisStore` (redis-store.ts): append-only streams. */
import { checkManyEntries, checkTrim, indexIds, parseStreamId } from '../stream-index.ts';
import type { Fields, StreamAppendManyResult, StreamEntry, StreamIndex, StreamMark, StreamTrimResult } from '../types.ts';
import { pairs, ttlMs } from './arguments.ts';
import { replyCode, toFields } from './replies.ts';
import type { RedisState } from './state.ts';

export async function streamAppend(s: RedisState, key: string, fields: Fields): Promise<string> {
  if (Object.keys(fields).length === 0) throw new RangeError('streamAppend needs at least one field');
  return (await s.redis.xadd(s.key(key), '*', ...pairs(fields))) as string;
}

export async function streamAppendManyAfter(s: RedisState, key: string, lastId: string | null, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): Promise<StreamAppendManyResult> {
  checkManyEntries(key, entries, indexes);
  // KEYS[1] is the stream; each distinct index gets one KEYS place after it.
  const indexKeys: string[] = [];
  const args = entries.flatMap((fields, i) => {
    const flat = pairs(fields);
    const index = indexes[i];
    let position = 0;
    if (index) {
      const indexKey = s.key(index.key);
      position = indexKeys.indexOf(indexKey) + 2;
      if (position === 1) position = indexKeys.push(indexKey) + 1;
    }
    return [String(flat.length / 2), String(position), index ? String(ttlMs(index.ttlSeconds)) : '', index?.once ?? '', ...flat];
  });
  const reply = (await s.evalMultiKey('countersignStreamAppendManyAfter', [s.key(key), ...indexKeys], [lastId ?? '', ...args])) as [string, (string | string[])?, string[]?];
  if (reply[0] === 'ok') return { ok: true, ids: reply[1] as string[] };
  if (reply[0] === 'duplicate') return { ok: false, duplicate: Number(reply[1]) };
  return { ok: false, last: reply[1] === undefined ? null : { id: reply[1] as string, fields: toFields(reply[2] ?? []) } };
}

export async function streamGet(s: RedisState, key: string, ids: readonly string[]): Promise<(StreamEntry | null)[]> {
  for (const id of ids) parseStreamId(id);
  // One XRANGE per id; auto-pipelining sends them together, so this is one round trip.
  const replies = await Promise.all(ids.map((id) => s.redis.call('XRANGE', s.key(key), id, id, 'COUNT', '1') as Promise<[string, string[]][]>));
  return replies.map((reply) => (reply[0] ? { id: reply[0][0], fields: toFields(reply[0][1]) } : null));
}

export async function streamIndexRead(s: RedisState, key: string): Promise<string[]> {
  try {
    const text = await s.redis.get(s.key(key));
    return text ? indexIds(text.split(' ')) : [];
  } catch (error) {
    // A list: an index written before indexes were strings, until its next append converts it.
    if (replyCode(error) === 'WRONGTYPE') return s.redis.lrange(s.key(key), 0, -1);
    throw error;
  }
}

export async function streamRange(s: RedisState, key: string, afterId?: string, count?: number): Promise<StreamEntry[]> {
  if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
  // `(id` is an exclusive start (Redis ≥ 6.2), so a page never repeats the last entry of the one before.
  const args = [s.key(key), afterId === undefined ? '-' : `(${afterId}`, '+', ...(count === undefined ? [] : ['COUNT', String(count)])];
  const reply = (await s.redis.call('XRANGE', ...args)) as [string, string[]][];
  return reply.map(([id, flat]) => ({ id, fields: toFields(flat) }));
}

export async function streamTrimBefore(s: RedisState, key: string, minId: string, mark: StreamMark): Promise<StreamTrimResult> {
  checkTrim(key, minId, mark);
  const reply = (await s.evalMultiKey('countersignStreamTrimBefore', [s.key(key), s.key(mark.key)], [minId, mark.ifId ?? '', ...pairs(mark.fields)])) as [string, number | string[]];
  if (reply[0] === 'ok') return { ok: true, trimmed: Number(reply[1]) };
  const flat = reply[1] as string[];
  return { ok: false, mark: flat.length > 0 ? toFields(flat) : null };
}
