import type { StreamEntry } from '../types.ts';

/** A sorted set: each member's score, and the members in (score, member) order for range reads. */
export interface Sorted {
  scores: Map<string, number>;
  order: { score: number; member: string }[];
}
/** A stream: its entries oldest first, and the last id it generated (Redis's `last-generated-id`). */
export interface Stream {
  entries: StreamEntry[];
  lastMs: number;
  lastSeq: number;
  groups?: Map<string, Group>;
}
/** One delivered, unacknowledged entry of a group: its consumer and when it was delivered to it (ms). */
export interface PendingEntry {
  consumer: string;
  deliveredAt: number;
}
/**
 * A consumer group: the last id it delivered, and its pending entries in id order (entries are
 * delivered in id order and a claim changes an entry in place, so the map's order is the id order).
 */
export interface Group {
  lastDelivered: [number, number];
  pending: Map<string, PendingEntry>;
  consumers: Map<string, { seenAt: number }>;
}
/**
 * A sliding window ({@link MemoryStore.windowAdd}): its entries oldest first (a queue, as the Redis
 * list), the running totals per currency (only those above 0), and the newest time added (for the
 * TTL, as the Lua keeps it).
 */
export interface Window {
  entries: { score: number; member: string; amounts: [string, number][] }[];
  totals: Map<string, number>;
  newest: number;
}
export type Value = { kind: 'window'; value: Window } | { kind: 'string'; value: string } | { kind: 'hash'; value: Map<string, string> } | { kind: 'set'; value: Set<string> } | { kind: 'sorted'; value: Sorted } | { kind: 'stream'; value: Stream };
export interface Entry {
  data: Value;
  expiresAt: number | undefined;
}

/**
 * The internal state of one `MemoryStore` (memory-store.ts): its entries and its clock, with the
 * bookkeeping every capability of `memory/` shares (expiry, type checks). Internal to the store
 * folder: not exported from its `index.ts`.
 */
export class MemoryState {
  readonly entries = new Map<string, Entry>();
  readonly now: () => number;

  constructor(now: () => number) {
    this.now = now;
  }

  live(key: string): Entry | undefined {
    const entry = this.entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry;
  }

  of<K extends Value['kind']>(key: string, kind: K): Extract<Value, { kind: K }> | undefined {
    const entry = this.live(key);
    if (!entry) return undefined;
    if (entry.data.kind !== kind) throw new TypeError(`WRONGTYPE: ${key} holds a ${entry.data.kind}`);
    return entry.data as Extract<Value, { kind: K }>;
  }

  expiry(ttlSeconds: number | undefined): number | undefined {
    return ttlSeconds === undefined ? undefined : this.now() + ttlSeconds * 1000;
  }

  touch(key: string, ttlSeconds: number | undefined): void {
    const entry = this.entries.get(key);
    if (entry && ttlSeconds !== undefined) entry.expiresAt = this.expiry(ttlSeconds);
  }

  ensure<K extends Value['kind']>(key: string, kind: K, make: () => Extract<Value, { kind: K }>['value']): Extract<Value, { kind: K }> {
    const existing = this.of(key, kind);
    if (existing) return existing;
    const data = { kind, value: make() } as unknown as Extract<Value, { kind: K }>;
    this.entries.set(key, { data, expiresAt: undefined });
    return data;
  }
}
