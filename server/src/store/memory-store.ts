import type {
  CasResult,
  CompareAndSetOptions,
  Fields,
  Guard,
  RateEntry,
  RateResult,
  SortedWindowEntry,
  SortedWindowResult,
  Store,
  StreamAppendManyResult,
  StreamClaimResult,
  StreamConsumer,
  StreamEntry,
  StreamIndex,
  StreamMark,
  StreamTrimResult,
  ThrottleResult,
  ThrottleRule,
  WindowEntry,
  WindowResult,
} from './types.ts';
import * as indexes from './memory/index-store.ts';
import * as queues from './memory/queue-store.ts';
import * as records from './memory/record-store.ts';
import { MemoryState } from './memory/state.ts';
import * as streams from './memory/stream-store.ts';
import * as windows from './memory/window-store.ts';

export { decimal, guardHolds } from './memory/record-store.ts';

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock for TTLs, epoch milliseconds; `Date.now` by default. */
  now?: () => number;
}

/**
 * The in-memory {@link Store}: the embedded default when `REDIS_URL` is unset. Every operation
 * runs to completion inside one turn of the event loop, which is what makes it atomic. It keeps
 * nothing across restarts and is for development and tests only.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  // The entries and the clock, shared with the capability modules of memory/ (one per interface).
  readonly #state: MemoryState;

  constructor(options: MemoryStoreOptions = {}) {
    this.#state = new MemoryState(options.now ?? Date.now);
  }

  async get(key: string): Promise<string | null> {
    return records.get(this.#state, key);
  }

  async set(key: string, value: string, options: { ttlSeconds?: number; onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    return records.set(this.#state, key, value, options);
  }

  async take(key: string): Promise<string | null> {
    return records.take(this.#state, key);
  }

  async replace(key: string, expected: string, value: string): Promise<boolean> {
    return records.replace(this.#state, key, expected, value);
  }

  async delete(key: string): Promise<boolean> {
    return records.deleteKey(this.#state, key);
  }

  async time(): Promise<number> {
    return records.time();
  }

  async hashCreate(key: string, fields: Fields, ttlSeconds: number): Promise<boolean> {
    return records.hashCreate(this.#state, key, fields, ttlSeconds);
  }

  async hashGet(key: string): Promise<Fields | null> {
    return records.hashGet(this.#state, key);
  }

  async hashGetField(key: string, field: string): Promise<string | null> {
    return records.hashGetField(this.#state, key, field);
  }

  async hashLength(key: string): Promise<number> {
    return records.hashLength(this.#state, key);
  }

  async hashSet(key: string, fields: Fields, ttlSeconds?: number): Promise<void> {
    return records.hashSet(this.#state, key, fields, ttlSeconds);
  }

  async hashDelete(key: string, field: string): Promise<boolean> {
    return records.hashDelete(this.#state, key, field);
  }

  async compareAndSet(key: string, guards: Guard[], set: Fields, options: CompareAndSetOptions = {}): Promise<CasResult> {
    return records.compareAndSet(this.#state, key, guards, set, options);
  }

  async hashThrottle(key: string, rule: ThrottleRule): Promise<ThrottleResult> {
    return records.hashThrottle(this.#state, key, rule);
  }

  async windowAdd(key: string, entry: WindowEntry): Promise<WindowResult> {
    return windows.windowAdd(this.#state, key, entry);
  }

  async windowRemove(key: string, member: string): Promise<boolean> {
    return windows.windowRemove(this.#state, key, member);
  }

  async sortedWindowAdd(key: string, entry: SortedWindowEntry): Promise<SortedWindowResult> {
    return windows.sortedWindowAdd(this.#state, key, entry);
  }

  async sortedWindowMembers(key: string, nowMs: number, windowMs: number): Promise<string[]> {
    return windows.sortedWindowMembers(this.#state, key, nowMs, windowMs);
  }

  async rateLimit(key: string, entry: RateEntry): Promise<RateResult> {
    return windows.rateLimit(this.#state, key, entry);
  }

  async setAdd(key: string, member: string, ttlSeconds?: number): Promise<void> {
    return indexes.setAdd(this.#state, key, member, ttlSeconds);
  }

  async setRemove(key: string, member: string): Promise<void> {
    return indexes.setRemove(this.#state, key, member);
  }

  async setMembers(key: string): Promise<string[]> {
    return indexes.setMembers(this.#state, key);
  }

  async sortedAdd(key: string, member: string, score: number, ttlSeconds?: number): Promise<void> {
    return indexes.sortedAdd(this.#state, key, member, score, ttlSeconds);
  }

  async sortedRangeByScore(key: string, maxScore: number, limit: number): Promise<string[]> {
    return indexes.sortedRangeByScore(this.#state, key, maxScore, limit);
  }

  async sortedRangeAfter(key: string, after: string | null, limit: number): Promise<string[]> {
    return indexes.sortedRangeAfter(this.#state, key, after, limit);
  }

  async sortedRemove(key: string, member: string): Promise<boolean> {
    return indexes.sortedRemove(this.#state, key, member);
  }

  async streamAppend(key: string, fields: Fields): Promise<string> {
    return streams.streamAppend(this.#state, key, fields);
  }

  async streamAppendManyAfter(key: string, lastId: string | null, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): Promise<StreamAppendManyResult> {
    return streams.streamAppendManyAfter(this.#state, key, lastId, entries, indexes);
  }

  async streamGet(key: string, ids: readonly string[]): Promise<(StreamEntry | null)[]> {
    return streams.streamGet(this.#state, key, ids);
  }

  async streamIndexRead(key: string): Promise<string[]> {
    return streams.streamIndexRead(this.#state, key);
  }

  async streamRange(key: string, afterId?: string, count?: number): Promise<StreamEntry[]> {
    return streams.streamRange(this.#state, key, afterId, count);
  }

  async streamTrimBefore(key: string, minId: string, mark: StreamMark): Promise<StreamTrimResult> {
    return streams.streamTrimBefore(this.#state, key, minId, mark);
  }

  async streamGroupCreate(key: string, group: string): Promise<boolean> {
    return queues.streamGroupCreate(this.#state, key, group);
  }

  async streamGroupRead(key: string, group: string, consumer: string, count: number): Promise<StreamEntry[] | null> {
    return queues.streamGroupRead(this.#state, key, group, consumer, count);
  }

  async streamAck(key: string, group: string, ids: string[]): Promise<number> {
    return queues.streamAck(this.#state, key, group, ids);
  }

  async streamClaim(key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): Promise<StreamClaimResult | null> {
    return queues.streamClaim(this.#state, key, group, consumer, options);
  }

  async streamConsumers(key: string, group: string): Promise<StreamConsumer[]> {
    return queues.streamConsumers(this.#state, key, group);
  }

  async streamConsumerRemove(key: string, group: string, consumer: string, options: { minIdleMs: number }): Promise<boolean> {
    return queues.streamConsumerRemove(this.#state, key, group, consumer, options);
  }

  async streamLength(key: string): Promise<number> {
    return queues.streamLength(this.#state, key);
  }

  async streamPendingCount(key: string, group: string): Promise<number> {
    return queues.streamPendingCount(this.#state, key, group);
  }

  async close(): Promise<void> {
    this.#state.entries.clear();
  }

  /**
   * The keys that hold a value now (expired ones left out), in no particular order: for tests and
   * diagnostics that count what the server stored, as SCAN does on Redis. Not part of {@link Store}.
   */
  keyNames(): string[] {
    return [...this.#state.entries.keys()].filter((key) => this.#state.live(key) !== undefined);
  }
}
