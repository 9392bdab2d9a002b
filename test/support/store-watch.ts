import type { Store } from '@countersign/server';
import { readTarget, sameState, withScores, type KeyState, type Target } from './key-state.ts';
import { WATCH } from './store-watch-table.ts';

export { recordWrites } from './record-writes.ts';
export { WATCH, type StoreWatchTable } from './store-watch-table.ts';

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
