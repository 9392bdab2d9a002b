import type { Store } from '@countersign/server';
import type { Target } from './key-state.ts';

// The table of how each Store operation is watched (store-watch.ts): a read, or the keys it writes.

/** How one member of {@link Store} is watched. */
type Watched<F> = F extends (...args: infer A) => Promise<infer R>
  ? /** Only reads: nothing to watch. */
      | 'read'
      /** Opens or closes connections; touches no key. */
      | 'lifecycle'
      | {
          /** Every key (and consumer group) the call may write, from its arguments; the first is its main key. */
          writes: (...args: A) => Target[];
          /** Stream entries the call appended, from its answer: an entry appended and deleted again still counts as a change. */
          appended?: (result: R, ...args: A) => { key: string; ids: string[] };
        }
  : /** Not an operation (`kind`). */ 'value';

/** Every member of the Store, classified; `satisfies` below makes a member left out a compile error. */
export type StoreWatchTable = { readonly [K in keyof Store]-?: Watched<Store[K]> };

/** The index keys of a batch append: strings. */
const index = (indexes: readonly ({ key: string } | null | undefined)[] | undefined): Target[] => (indexes ?? []).flatMap((i) => (i ? [{ key: i.key, kind: 'string' as const }] : []));

/**
 * The Store's operations, each either a read or the keys it writes. A stream append also names the
 * index keys it writes in the same step (`streamAppendManyAfter`), and the consumer-group operations
 * the group whose pending entries they move.
 */
export const WATCH = {
  kind: 'value',
  get: 'read',
  set: { writes: (key) => [{ key, kind: 'string' }] },
  take: { writes: (key) => [{ key, kind: 'string' }] },
  replace: { writes: (key) => [{ key, kind: 'string' }] },
  delete: { writes: (key) => [{ key, kind: 'any' }] },
  hashCreate: { writes: (key) => [{ key, kind: 'hash' }] },
  hashGet: 'read',
  hashGetField: 'read',
  hashLength: 'read',
  hashSet: { writes: (key) => [{ key, kind: 'hash' }] },
  hashDelete: { writes: (key) => [{ key, kind: 'hash' }] },
  compareAndSet: { writes: (key) => [{ key, kind: 'hash' }] },
  hashThrottle: { writes: (key) => [{ key, kind: 'hash' }] },
  windowAdd: { writes: (key) => [{ key, kind: 'window' }] },
  windowRemove: { writes: (key) => [{ key, kind: 'window' }] },
  sortedWindowAdd: { writes: (key, entry) => [{ key, kind: 'sorted', scores: [[entry.member, entry.score ?? entry.nowMs]] }] },
  sortedWindowMembers: 'read',
  // A peek only asks; a counted call moves the counter (a string: the GCRA's next allowed time).
  rateLimit: { writes: (key, entry) => (entry.peek ? [] : [{ key, kind: 'string' }]) },
  setAdd: { writes: (key) => [{ key, kind: 'set' }] },
  setRemove: { writes: (key) => [{ key, kind: 'set' }] },
  setMembers: 'read',
  sortedAdd: { writes: (key, member, score) => [{ key, kind: 'sorted', scores: [[member, score]] }] },
  sortedRangeByScore: 'read',
  sortedRangeAfter: 'read',
  sortedRemove: { writes: (key) => [{ key, kind: 'sorted' }] },
  streamAppend: { writes: (key) => [{ key, kind: 'stream' }], appended: (id, key) => ({ key, ids: [id] }) },
  streamAppendManyAfter: {
    writes: (key, _lastId, _entries, indexes) => [{ key, kind: 'stream' }, ...index(indexes)],
    appended: (result, key) => ({ key, ids: result.ok ? result.ids : [] }),
  },
  streamGet: 'read',
  streamIndexRead: 'read',
  streamRange: 'read',
  streamGroupCreate: {
    writes: (key, group) => [
      { key, kind: 'stream' },
      { key, kind: 'group', group },
    ],
  },
  // Reading through a group delivers: the entries become pending on the consumer.
  streamGroupRead: { writes: (key, group) => [{ key, kind: 'group', group }] },
  streamAck: {
    writes: (key, group) => [
      { key, kind: 'stream' },
      { key, kind: 'group', group },
    ],
  },
  streamClaim: { writes: (key, group) => [{ key, kind: 'group', group }] },
  streamPendingCount: 'read',
  streamLength: 'read',
  streamConsumers: 'read',
  // Removes a consumer that holds nothing: the group changes, its pending entries do not.
  streamConsumerRemove: { writes: (key, group) => [{ key, kind: 'group', group }] },
  // The trim and its anchor land in one step (docs/audit.md, "Retention").
  streamTrimBefore: {
    writes: (key, _minId, mark) => [
      { key, kind: 'stream' },
      { key: mark.key, kind: 'hash' },
    ],
  },
  // Reads the store's clock: no key.
  time: 'read',
  close: 'lifecycle',
} satisfies StoreWatchTable;
