import type { IndexStore } from './index-store.ts';
import type { QueueStore } from './queue-store.ts';
import type { RecordStore } from './record-store.ts';
import type { StreamStore } from './stream-store.ts';
import type { WindowStore } from './window-store.ts';

export type { BoundedIncrement, CasResult, CompareAndSetOptions, Fields, Guard, RecordStore, ThrottleResult, ThrottleRule } from './record-store.ts';
export { LateSwapError } from './record-store.ts';
export type { RateEntry, RateResult, SortedWindowEntry, SortedWindowResult, WindowEntry, WindowResult, WindowStore } from './window-store.ts';
export type { IndexStore } from './index-store.ts';
export type { StreamAppendManyResult, StreamEntry, StreamIndex, StreamMark, StreamStore, StreamTrimResult } from './stream-store.ts';
export type { QueueStore, StreamClaimResult, StreamConsumer } from './queue-store.ts';

/**
 * The storage of Countersign: the capabilities below in one object, with a Redis implementation
 * (the production store) and an in-memory one (the development default). Every operation on one
 * key is atomic; no operation touches more than one key, so every one works on Redis Cluster.
 *
 * Keys are logical (see `keys.ts`); an implementation adds its own prefix. TTLs are in seconds and
 * only collect garbage: correctness never depends on a key disappearing on time, because every
 * record carries its own deadlines and the gate compares them against an injected clock.
 *
 * One interface per capability, so that a caller can say which one it uses (a rate limit takes a
 * {@link WindowStore}, the audit log a {@link StreamStore} and a {@link IndexStore}); the app is
 * composed with the whole `Store`, and each implementation is one class.
 */
export interface Store extends RecordStore, WindowStore, IndexStore, StreamStore, QueueStore {
  readonly kind: 'memory' | 'redis';

  /** Releases connections. */
  close(): Promise<void>;
}
