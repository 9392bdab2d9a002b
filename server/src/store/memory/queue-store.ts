/** The `QueueStore` operations of `MemoryStore` (memory-store.ts): consumer groups over a stream. */
import { parseStreamId } from '../stream-index.ts';
import type { StreamClaimResult, StreamConsumer, StreamEntry } from '../types.ts';
import type { MemoryState } from './state.ts';
import { compareStreamIds } from './stream-store.ts';

export function streamGroupCreate(s: MemoryState, key: string, group: string): boolean {
  const stream = s.ensure(key, 'stream', () => ({ entries: [], lastMs: 0, lastSeq: -1 })).value;
  stream.groups ??= new Map();
  if (stream.groups.has(group)) return false;
  stream.groups.set(group, { lastDelivered: [0, 0], pending: new Map(), consumers: new Map() });
  return true;
}

export function streamGroupRead(s: MemoryState, key: string, group: string, consumer: string, count: number): StreamEntry[] | null {
  checkCount(count);
  const stream = s.of(key, 'stream')?.value;
  const state = stream?.groups?.get(group);
  if (!stream || !state) return null;
  const after = state.lastDelivered;
  const fresh = stream.entries.filter(({ id }) => compareStreamIds(parseStreamId(id), after) > 0).slice(0, count);
  const now = s.now();
  // As XREADGROUP (Redis 7.0): a delivery creates the consumer and counts as seen; a read of nothing neither.
  if (fresh.length > 0) state.consumers.set(consumer, { seenAt: now });
  for (const entry of fresh) state.pending.set(entry.id, { consumer, deliveredAt: now });
  if (fresh.length > 0) state.lastDelivered = parseStreamId(fresh.at(-1)!.id);
  return fresh.map((entry) => ({ id: entry.id, fields: { ...entry.fields } }));
}

export function streamAck(s: MemoryState, key: string, group: string, ids: string[]): number {
  const stream = s.of(key, 'stream')?.value;
  if (!stream || ids.length === 0) return 0;
  const state = stream.groups?.get(group);
  const acked = ids.filter((id) => state?.pending.delete(id) === true).length;
  const gone = new Set(ids);
  stream.entries = stream.entries.filter((entry) => !gone.has(entry.id));
  return acked;
}

export function streamClaim(s: MemoryState, key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): StreamClaimResult | null {
  checkCount(options.count);
  if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
  const stream = s.of(key, 'stream')?.value;
  const state = stream?.groups?.get(group);
  if (!stream || !state) return null;
  const from = parseStreamId(options.cursor ?? '0-0');
  const now = s.now();
  const byId = new Map(stream.entries.map((entry) => [entry.id, entry]));
  const entries: StreamEntry[] = [];
  const deleted: string[] = [];
  // As XAUTOCLAIM: look at no more than 10 × count pending entries per call, so one call stays short.
  let looks = options.count * 10;
  let cursor = '0-0';
  for (const [id, pending] of state.pending) {
    if (compareStreamIds(parseStreamId(id), from) < 0) continue;
    if (entries.length === options.count || looks === 0) {
      cursor = id;
      break;
    }
    looks -= 1;
    if (now - pending.deliveredAt < options.minIdleMs) continue;
    const entry = byId.get(id);
    if (!entry) {
      state.pending.delete(id);
      deleted.push(id);
      continue;
    }
    state.pending.set(id, { consumer, deliveredAt: now });
    entries.push({ id, fields: { ...entry.fields } });
  }
  // As XAUTOCLAIM (Redis 7.0): taking entries over creates the claiming consumer and counts as seen.
  if (entries.length > 0) state.consumers.set(consumer, { seenAt: now });
  return { cursor, entries, deleted };
}

export function streamConsumers(s: MemoryState, key: string, group: string): StreamConsumer[] {
  const state = s.of(key, 'stream')?.value.groups?.get(group);
  if (!state) return [];
  const now = s.now();
  const pending = new Map<string, number>();
  for (const entry of state.pending.values()) pending.set(entry.consumer, (pending.get(entry.consumer) ?? 0) + 1);
  return [...state.consumers].map(([name, { seenAt }]) => ({ name, pending: pending.get(name) ?? 0, idleMs: Math.max(0, now - seenAt) }));
}

export function streamConsumerRemove(s: MemoryState, key: string, group: string, consumer: string, options: { minIdleMs: number }): boolean {
  if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
  const state = s.of(key, 'stream')?.value.groups?.get(group);
  const seen = state?.consumers.get(consumer);
  if (!state || !seen) return false;
  if (s.now() - seen.seenAt < options.minIdleMs) return false;
  for (const entry of state.pending.values()) if (entry.consumer === consumer) return false;
  state.consumers.delete(consumer);
  return true;
}

export function streamLength(s: MemoryState, key: string): number {
  return s.of(key, 'stream')?.value.entries.length ?? 0;
}

export function streamPendingCount(s: MemoryState, key: string, group: string): number {
  return s.of(key, 'stream')?.value.groups?.get(group)?.pending.size ?? 0;
}

/** Refuses a count that is not a positive whole number, as Redis would. */
function checkCount(count: number): void {
  if (!(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
}
