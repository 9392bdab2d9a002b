import type { Store } from '@countersign/server';
import type { StreamEntry } from '../../server/src/store/index.ts';

/**
 * The value of one key of any kind, read back through the Store interface alone (`store-watch.ts`
 * reads each key a watched call writes with these, before and after). Every kind the Store can
 * hold has a reader; a key that no reader can read is `unreadable`, which a check never passes.
 */

/** The kind of value a write leaves at a key: which reader to try first (`any`: a delete, of any kind). */
export type KeyKind = 'string' | 'hash' | 'set' | 'sorted' | 'stream' | 'window' | 'any';

/**
 * What one write touches: a key, or one consumer group of a stream (its pending entries). A write
 * to a sorted set names the member it scores and the score (`scores`): the Store has no ZSCORE, so
 * the watcher checks, before and after, whether that member holds that score.
 */
export type Target = { key: string; kind: KeyKind; scores?: readonly (readonly [member: string, score: number])[] } | { key: string; kind: 'group'; group: string };

/** A key's whole value as read through the Store; null when absent (or an empty stream, which reads the same). */
export type KeyState =
  | null
  | { kind: 'string'; value: string }
  | { kind: 'hash'; value: Record<string, string> }
  | { kind: 'set'; value: string[] }
  /**
   * Members in order (by score), and for each member a write during the watch scored, whether it
   * holds that score (`"<member> <score>"`: true or false). No Store operation moves the score of
   * a member it does not name, so these and the order are all a watched call can change.
   */
  | { kind: 'sorted'; value: { members: string[]; scored: Record<string, boolean> } }
  | { kind: 'stream'; value: StreamEntry[] }
  /** What the Store lets one read of a sliding window: how many entries it holds, and their totals per currency. */
  | { kind: 'window'; value: { count: number; totals: Record<string, number> } }
  | { kind: 'group'; value: { pending: number } }
  /** No reader could read the key: always a change, never a pass. */
  | { kind: 'unreadable'; value: string };

/** A sorted set past this many members is reported unreadable rather than compared in part. */
const MAX_MEMBERS = 100_000;
/** The window probe's member: never added, since the probe allows no entry. */
const PROBE = 'store-watch-probe';

type Reader = (store: Store, key: string, originals: Originals) => Promise<KeyState>;
/** The store's own `windowAdd`, unwatched: the window reader calls it. */
export type Originals = Pick<Store, 'windowAdd'>;

/** The greatest number below `x` (the next double down), so that `(below(x), x]` holds `x` alone. */
function below(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  const bits = new BigInt64Array(new Float64Array([x]).buffer);
  bits[0] = bits[0]! + (x > 0 ? -1n : 1n);
  return new Float64Array(bits.buffer)[0]!;
}

/** Whether `member` of the sorted set at `key` has exactly `score`: it is among the members up to `score`, not among those below. */
async function holds(store: Store, key: string, member: string, score: number): Promise<boolean> {
  if (!Number.isFinite(score)) return (await store.sortedRangeByScore(key, score, MAX_MEMBERS)).includes(member);
  const [upTo, under] = await Promise.all([store.sortedRangeByScore(key, score, MAX_MEMBERS), store.sortedRangeByScore(key, below(score), MAX_MEMBERS)]);
  return upTo.includes(member) && !under.includes(member);
}

/** A sorted set's state with the given member-score pairs checked as well (see {@link KeyState}). */
export async function withScores(store: Store, key: string, state: KeyState, pairs: Iterable<readonly [string, number]>): Promise<KeyState> {
  if (state?.kind !== 'sorted') return state;
  const scored = { ...state.value.scored };
  for (const [member, score] of pairs) scored[`${member} ${score}`] = await holds(store, key, member, score);
  return { kind: 'sorted', value: { members: state.value.members, scored: Object.fromEntries(Object.entries(scored).sort()) } };
}

const READERS: Record<Exclude<KeyKind, 'any'>, Reader> = {
  async string(store, key) {
    const value = await store.get(key);
    return value === null ? null : { kind: 'string', value };
  },
  async hash(store, key) {
    const value = await store.hashGet(key);
    return value === null || Object.keys(value).length === 0 ? null : { kind: 'hash', value: Object.fromEntries(Object.entries(value).sort()) };
  },
  async set(store, key) {
    const value = await store.setMembers(key);
    return value.length === 0 ? null : { kind: 'set', value: [...value].sort() };
  },
  async sorted(store, key) {
    const members = await store.sortedRangeByScore(key, Number.POSITIVE_INFINITY, MAX_MEMBERS);
    if (members.length === 0) return null;
    if (members.length >= MAX_MEMBERS) return { kind: 'unreadable', value: `a sorted set of ${MAX_MEMBERS} members or more` };
    return { kind: 'sorted', value: { members, scored: {} } };
  },
  async stream(store, key) {
    const value = await store.streamRange(key);
    return value.length === 0 ? null : { kind: 'stream', value };
  },
  async window(_store, key, originals) {
    // The Store reads a window only through its add: one that allows no entry (maxCount 0) at time 0
    // drops nothing (every entry is younger) and adds nothing, and answers the count and totals.
    const probe = await originals.windowAdd(key, { nowMs: 0, windowMs: 0, member: PROBE, maxCount: 0 });
    return probe.count === 0 ? null : { kind: 'window', value: { count: probe.count, totals: Object.fromEntries(Object.entries(probe.totals).sort()) } };
  },
};

/** Every reader, in a fixed order (so one key always reads the same way). */
const ORDER = Object.keys(READERS) as (keyof typeof READERS)[];

/**
 * A key's value, whatever its kind. The reader of the kind the write leaves is tried first; a reader
 * that fails (WRONGTYPE: the key holds another kind) hands over to the others. A key that every
 * reader fails on is `unreadable`.
 */
export async function readKey(store: Store, key: string, hint: KeyKind, originals: Originals = store): Promise<KeyState> {
  const failures: string[] = [];
  const order = hint === 'any' ? ORDER : [hint, ...ORDER.filter((kind) => kind !== hint)];
  let readable = false;
  for (const kind of order) {
    try {
      const state = await READERS[kind](store, key, originals);
      if (state) return state;
      readable = true;
      // An empty read of the hinted kind: the key is absent (a key of another kind fails that reader).
      if (kind === hint) return null;
    } catch (error) {
      failures.push(`${kind}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return readable ? null : { kind: 'unreadable', value: failures.join('; ') };
}

export async function readTarget(store: Store, target: Target, originals: Originals): Promise<KeyState> {
  if (target.kind !== 'group') return readKey(store, target.key, target.kind, originals);
  try {
    const pending = await store.streamPendingCount(target.key, target.group);
    return pending === 0 ? null : { kind: 'group', value: { pending } };
  } catch (error) {
    return { kind: 'unreadable', value: `group ${target.group}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

/** Two states of one key, equal: streams entry by entry (they are long, and mostly share their entries), the rest as JSON. */
export function sameState(a: KeyState, b: KeyState): boolean {
  if (a === b) return true;
  if (a?.kind === 'stream' && b?.kind === 'stream') return a.value.length === b.value.length && a.value.every((entry, i) => sameEntry(entry, b.value[i]!));
  return JSON.stringify(a) === JSON.stringify(b);
}

export function sameEntry(a: StreamEntry, b: StreamEntry): boolean {
  return a === b || (a.id === b.id && JSON.stringify(a.fields) === JSON.stringify(b.fields));
}
