import type { Store } from '@countersign/server';
import { readTarget, sameState, withScores, type KeyState, type Target } from './key-state.ts';

/**
 * Watching a store while one call runs: which keys the call writes, what each held before its first
 * write and after the call, so a test can say "this refusal changed nothing but what the design
 * allows" (docs/design.md "HTTP surface": bad input changes nothing; guarantee 9: every refusal is
 * audited).
 *
 * The watched operations are derived from the {@link Store} interface itself: {@link WATCH} is a
 * table with one entry per member of `Store`, so a new operation does not compile until it says
 * whether it reads or which keys it writes. Every kind of value the store can hold has a reader
 * (`key-state.ts`: strings, hashes, sets, sorted sets with the scores written, streams,
 * consumer groups and the sliding windows); a key that none of them can read is reported as a
 * change, so it fails a check instead of passing unseen. `allowed-changes.ts` says which changes
 * a refusal may leave.
 */

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
  streamGroupCreate: { writes: (key, group) => [{ key, kind: 'stream' }, { key, kind: 'group', group }] },
  // Reading through a group delivers: the entries become pending on the consumer.
  streamGroupRead: { writes: (key, group) => [{ key, kind: 'group', group }] },
  streamAck: { writes: (key, group) => [{ key, kind: 'stream' }, { key, kind: 'group', group }] },
  streamClaim: { writes: (key, group) => [{ key, kind: 'group', group }] },
  streamPendingCount: 'read',
  streamLength: 'read',
  streamConsumers: 'read',
  // Removes a consumer that holds nothing: the group changes, its pending entries do not.
  streamConsumerRemove: { writes: (key, group) => [{ key, kind: 'group', group }] },
  // The trim and its anchor land in one step (docs/audit.md, "Retention").
  streamTrimBefore: { writes: (key, _minId, mark) => [{ key, kind: 'stream' }, { key: mark.key, kind: 'hash' }] },
  // Reads the store's clock: no key.
  time: 'read',
  close: 'lifecycle',
} satisfies StoreWatchTable;

/** One key (or consumer group) a call changed. */
export interface Change {
  key: string;
  /** The consumer group, for a change in a group's pending entries. */
  group?: string;
  before: KeyState;
  after: KeyState;
  /** Stream entries appended during the call, as the append answered them (some may be gone again). */
  appended: string[];
}

/** Watches one store; see {@link watchStore}. */
export interface StoreWatch {
  /** Starts recording: from now on each key is read before its first write. */
  begin(): void;
  /** Stops recording and answers every key whose value differs from before its first write. */
  end(): Promise<Change[]>;
}

/** One key (or consumer group) written during a watch. */
interface WatchedKey {
  target: Target;
  state: Promise<KeyState>;
  scores: Map<string, readonly [string, number]>;
}

const targetId = (target: Target) => (target.kind === 'group' ? `${target.key}\u0000${target.group}` : target.key);

/**
 * Wraps every writing operation of {@link WATCH} on this store instance (the object the app, its
 * audit log and its job queue hold), so that between `begin` and `end` each key a call writes is
 * read before its first write, and again at the end.
 *
 * Streams grow with every refusal (each is audited), so reading a whole chain twice per call
 * would make a long run quadratic. A stream's state at the end of one watch is therefore kept, and
 * is its state before the next one unless a write reached it in between; and when a watch only
 * appended to it, the end reads just the entries after the last one known. Both rest on what the
 * Store promises: a stream entry never changes, and only an operation of this table removes one
 * (this object must be the store's only writer, as it is in a test's harness).
 */
export function watchStore(store: Store): StoreWatch {
  /** Per key (or group) written in this watch: its first target, its state before, and the member-score pairs checked. */
  let before: Map<string, WatchedKey> | null = null;
  let appended = new Map<string, string[]>();
  /** Streams written by something other than an append during this watch: read whole at the end. */
  let rewritten = new Set<string>();
  /** Each stream's state as the last watch left it; dropped when anything writes it outside a watch. */
  const streams = new Map<string, KeyState>();
  const target = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const originals = { windowAdd: store.windowAdd.bind(store) };
  const firstRead = (t: Target): Promise<KeyState> => (t.kind !== 'group' && streams.has(t.key) ? Promise.resolve(streams.get(t.key)!) : readTarget(store, t, originals));
  for (const [name, how] of Object.entries(WATCH)) {
    if (typeof how === 'string') continue;
    const spec = how as { writes: (...args: unknown[]) => Target[]; appended?: (result: unknown, ...args: unknown[]) => { key: string; ids: string[] } };
    const original = target[name]!.bind(store);
    target[name] = async (...args: unknown[]) => {
      const watching = before;
      const touched = spec.writes(...args);
      if (!watching) {
        for (const t of touched) if (t.kind !== 'group') streams.delete(t.key);
        return original(...args);
      }
      for (const t of touched) {
        let watched = watching.get(targetId(t));
        if (!watched) watching.set(targetId(t), (watched = { target: t, state: firstRead(t), scores: new Map() }));
        if (t.kind !== 'group' && !spec.appended) rewritten.add(t.key);
        // A pair first named now is checked now, before this write: no earlier write moved that member to that score.
        const fresh = t.kind === 'group' ? [] : (t.scores ?? []).filter(([member, score]) => !watched.scores.has(`${member} ${score}`));
        for (const pair of fresh) watched.scores.set(`${pair[0]} ${pair[1]}`, pair);
        if (fresh.length > 0) watched.state = watched.state.then((state) => withScores(store, t.key, state, fresh));
      }
      await Promise.all(touched.map((t) => watching.get(targetId(t))!.state));
      const result = await original(...args);
      if (spec.appended && before === watching) {
        const { key, ids } = spec.appended(result, ...args);
        if (ids.length > 0) appended.set(key, [...(appended.get(key) ?? []), ...ids]);
      }
      return result;
    };
  }
  /** A target's state at the end of a watch; a stream that was only appended to is read from its last known entry on. */
  async function lastRead(t: Target, was: KeyState): Promise<KeyState> {
    if (t.kind !== 'stream' || was?.kind !== 'stream' || rewritten.has(t.key)) return readTarget(store, t, originals);
    const tail = await store.streamRange(t.key, was.value.at(-1)!.id);
    return tail.length === 0 ? was : { kind: 'stream', value: [...was.value, ...tail] };
  }
  return {
    begin() {
      before = new Map();
      appended = new Map();
      rewritten = new Set();
    },
    async end() {
      const watched = before ?? new Map();
      const added = appended;
      before = null;
      const changes: Change[] = [];
      for (const { target: t, state, scores } of watched.values()) {
        const was = await state;
        const now = await withScores(store, t.key, await lastRead(t, was), scores.values());
        if (t.kind === 'stream' || (t.kind !== 'group' && streams.has(t.key))) {
          if (t.kind === 'stream' && (now === null || now.kind === 'stream')) streams.set(t.key, now);
          else streams.delete(t.key);
        }
        const ids = t.kind === 'stream' ? (added.get(t.key) ?? []) : [];
        const unreadable = was?.kind === 'unreadable' || now?.kind === 'unreadable';
        if (unreadable || ids.length > 0 || !sameState(was, now)) {
          changes.push({ key: t.key, ...(t.kind === 'group' ? { group: t.group } : {}), before: was, after: now, appended: ids });
        }
      }
      return changes;
    },
  };
}

/**
 * Records, until `stop()`, every write {@link WATCH} says a call makes, as `"<operation> <key>"` in
 * call order: for a test that asserts which writes a call made at all, not what they changed
 * (a peek at a rate limit, which writes nothing, is not recorded).
 */
export function recordWrites(store: Store): { writes: string[]; stop(): void } {
  const writes: string[] = [];
  const target = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const restore: (() => void)[] = [];
  for (const [name, how] of Object.entries(WATCH)) {
    if (typeof how === 'string') continue;
    const spec = how as { writes: (...args: unknown[]) => Target[] };
    const own = Object.hasOwn(store, name) ? target[name] : undefined;
    const original = target[name]!;
    target[name] = (...args: unknown[]) => {
      for (const t of spec.writes(...args)) writes.push(`${name} ${t.key}`);
      return original.apply(store, args);
    };
    restore.push(() => {
      if (own === undefined) delete target[name];
      else target[name] = own;
    });
  }
  return {
    writes,
    stop() {
      for (const undo of restore) undo();
    },
  };
}
