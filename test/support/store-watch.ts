import type { Store } from '@countersign/server';
import { expect } from 'vitest';
import { storedEvent } from '../../server/src/audit/index.ts';
import type { StreamEntry } from '../../server/src/store/index.ts';

/**
 * Watching a store while one call runs: which keys the call writes, what each held before its
 * first write and after the call, so a test can say "this refusal changed nothing but what the
 * design allows" (DESIGN.md: bad input changes nothing; guarantee 9: every refusal is audited).
 *
 * The watched operations are derived from the {@link Store} interface itself: {@link WATCH} is a
 * table with one entry per member of `Store`, so a new operation does not compile until it says
 * whether it reads or which keys it writes. Every kind of value the store can hold has a reader
 * here (strings, hashes, sets, sorted sets with their scores, lists, streams, consumer groups and
 * the sliding windows); a key that none of them can read is reported as a change, so it fails a
 * check instead of passing unseen.
 */

/** The kind of value a write leaves at a key: which reader to try first (`any`: a delete, of any kind). */
export type KeyKind = 'string' | 'hash' | 'set' | 'sorted' | 'list' | 'stream' | 'window' | 'any';

/** What one write touches: a key, or one consumer group of a stream (its pending entries). */
export type Target = { key: string; kind: KeyKind } | { key: string; kind: 'group'; group: string };

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

const index = (indexes: readonly ({ key: string } | null | undefined)[] | undefined): Target[] => (indexes ?? []).flatMap((i) => (i ? [{ key: i.key, kind: 'any' as const }] : []));

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
  delete: { writes: (key) => [{ key, kind: 'any' }] },
  hashCreate: { writes: (key) => [{ key, kind: 'hash' }] },
  hashGet: 'read',
  hashGetField: 'read',
  hashLength: 'read',
  hashSet: { writes: (key) => [{ key, kind: 'hash' }] },
  hashDelete: { writes: (key) => [{ key, kind: 'hash' }] },
  compareAndSet: { writes: (key) => [{ key, kind: 'hash' }] },
  pollThrottle: { writes: (key) => [{ key, kind: 'hash' }] },
  windowAdd: { writes: (key) => [{ key, kind: 'window' }] },
  windowRemove: { writes: (key) => [{ key, kind: 'window' }] },
  sortedWindowAdd: { writes: (key) => [{ key, kind: 'sorted' }] },
  sortedWindowMembers: 'read',
  setAdd: { writes: (key) => [{ key, kind: 'set' }] },
  setRemove: { writes: (key) => [{ key, kind: 'set' }] },
  setMembers: 'read',
  sortedAdd: { writes: (key) => [{ key, kind: 'sorted' }] },
  sortedRangeByScore: 'read',
  sortedRemove: { writes: (key) => [{ key, kind: 'sorted' }] },
  listAppend: { writes: (key) => [{ key, kind: 'list' }] },
  listRange: 'read',
  streamAppend: { writes: (key) => [{ key, kind: 'stream' }], appended: (id, key) => ({ key, ids: [id] }) },
  streamAppendAfter: { writes: (key) => [{ key, kind: 'stream' }], appended: (result, key) => ({ key, ids: result.ok ? [result.id] : [] }) },
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
  close: 'lifecycle',
} satisfies StoreWatchTable;

/** A key's whole value as read through the Store; null when absent (or an empty stream, which reads the same). */
export type KeyState =
  | null
  | { kind: 'string'; value: string }
  | { kind: 'hash'; value: Record<string, string> }
  | { kind: 'set'; value: string[] }
  /** Members in order, each with its score (rounded up to a whole number; see {@link readScores}). */
  | { kind: 'sorted'; value: [member: string, score: number | string][] }
  | { kind: 'list'; value: string[] }
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
type Originals = Pick<Store, 'windowAdd'>;

/**
 * The scores of a sorted set's members, found through `sortedRangeByScore` alone (the Store has no
 * ZSCORE): the members with a score at most `s` are a prefix of the order, so bisecting `s` over the
 * safe integers finds each member's score rounded up, about 54 reads per distinct score, run in
 * parallel. Scores beyond ±2^53 read as `below` / `above`.
 */
async function readScores(store: Store, key: string, size: number): Promise<(number | string)[]> {
  const scores: (number | string)[] = new Array(size).fill('above');
  const count = async (score: number) => (await store.sortedRangeByScore(key, score, MAX_MEMBERS)).length;
  const [low, high] = [-(2 ** 53), 2 ** 53];
  // Members at positions [from, to) have scores in (lo, hi].
  const split = async (lo: number, hi: number, from: number, to: number): Promise<void> => {
    if (from >= to) return;
    if (hi - lo <= 1) {
      for (let i = from; i < to; i++) scores[i] = hi;
      return;
    }
    const middle = lo + Math.floor((hi - lo) / 2);
    const at = await count(middle);
    await Promise.all([split(lo, middle, from, at), split(middle, hi, at, to)]);
  };
  const [below, within] = await Promise.all([count(low), count(high)]);
  for (let i = 0; i < below; i++) scores[i] = 'below';
  await split(low, high, below, within);
  return scores;
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
    const scores = await readScores(store, key, members.length);
    return { kind: 'sorted', value: members.map((member, i) => [member, scores[i]!]) };
  },
  async list(store, key) {
    const value = await store.listRange(key);
    return value.length === 0 ? null : { kind: 'list', value };
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

async function readTarget(store: Store, target: Target, originals: Originals): Promise<KeyState> {
  if (target.kind !== 'group') return readKey(store, target.key, target.kind, originals);
  try {
    const pending = await store.streamPendingCount(target.key, target.group);
    return pending === 0 ? null : { kind: 'group', value: { pending } };
  } catch (error) {
    return { kind: 'unreadable', value: `group ${target.group}: ${error instanceof Error ? error.message : String(error)}` };
  }
}

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

const targetId = (target: Target) => (target.kind === 'group' ? `${target.key}\u0000${target.group}` : target.key);

/**
 * Wraps every writing operation of {@link WATCH} on this store instance (the object the app, its
 * audit log and its job queue hold), so that between `begin` and `end` each key a call writes is
 * read before its first write, and again at the end.
 */
export function watchStore(store: Store): StoreWatch {
  let before: Map<string, { target: Target; state: Promise<KeyState> }> | null = null;
  let appended = new Map<string, string[]>();
  const target = store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  const originals = { windowAdd: store.windowAdd.bind(store) };
  for (const [name, how] of Object.entries(WATCH)) {
    if (typeof how === 'string') continue;
    const spec = how as { writes: (...args: unknown[]) => Target[]; appended?: (result: unknown, ...args: unknown[]) => { key: string; ids: string[] } };
    const original = target[name]!.bind(store);
    target[name] = async (...args: unknown[]) => {
      const watching = before;
      if (!watching) return original(...args);
      const touched = spec.writes(...args);
      for (const t of touched) if (!watching.has(targetId(t))) watching.set(targetId(t), { target: t, state: readTarget(store, t, originals) });
      await Promise.all(touched.map((t) => watching.get(targetId(t))!.state));
      const result = await original(...args);
      if (spec.appended && before === watching) {
        const { key, ids } = spec.appended(result, ...args);
        if (ids.length > 0) appended.set(key, [...(appended.get(key) ?? []), ...ids]);
      }
      return result;
    };
  }
  return {
    begin() {
      before = new Map();
      appended = new Map();
    },
    async end() {
      const watched = before ?? new Map();
      const added = appended;
      before = null;
      const changes: Change[] = [];
      for (const { target: t, state } of watched.values()) {
        const [was, now] = [await state, await readTarget(store, t, originals)];
        const ids = t.kind === 'stream' ? (added.get(t.key) ?? []) : [];
        const unreadable = was?.kind === 'unreadable' || now?.kind === 'unreadable';
        if (unreadable || ids.length > 0 || JSON.stringify(was) !== JSON.stringify(now)) {
          changes.push({ key: t.key, ...(t.kind === 'group' ? { group: t.group } : {}), before: was, after: now, appended: ids });
        }
      }
      return changes;
    },
  };
}

// ---------------------------------------------------------------------------------------------
// What a refusal may change.
// ---------------------------------------------------------------------------------------------

/** Request ids as the server issues them; an audit index is never opened under anything else. */
const REQUEST_ID = /^[A-Za-z0-9_-]{16,128}$/;
const CHAIN = /^auditlog:\{([^{}]+)\}$/;
const CHAIN_INDEX = /^auditidx:\{([^{}]+)\}:(.*)$/s;

/** What a refusal answered, and what it may consume by design. */
export interface Refusal {
  /** The response's `error`: the reason every audited refusal must carry. */
  error: string;
  /** Keys of single-use values this refusal is designed to consume (present before, gone after). */
  consumes?: RegExp;
}

const brief = (state: KeyState) => JSON.stringify(state)?.slice(0, 200);

/**
 * The changes a refusal left that the design does not allow, each as a sentence (empty when none).
 * Allowed are only: `refused` events with `refusal.error` as reason appended to a tenant's audit
 * chain (`auditlog:{tenant}`, docs/audit.md), the ids of exactly those events appended to the
 * per-request index of their own well-formed request id (`auditidx:{tenant}:<auth_req_id>`), and
 * the single-use values `refusal.consumes` names, deleted. Anything else is reported, as is a key
 * that could not be read.
 */
export function disallowedChanges(changes: Change[], refusal: Refusal): string[] {
  const problems: string[] = [];
  /** Per index key, the ids of the refused events appended for it. */
  const indexed = new Map<string, string[]>();
  for (const change of changes) {
    const chain = CHAIN.exec(change.key);
    if (!chain || change.group !== undefined) continue;
    const tenant = chain[1]!;
    if (change.after !== null && change.after.kind !== 'stream') {
      problems.push(`${change.key} is no longer a stream: ${brief(change.after)}`);
      continue;
    }
    const was = change.before?.kind === 'stream' ? change.before.value : [];
    const now = change.after?.value ?? [];
    if (change.before !== null && change.before.kind !== 'stream') problems.push(`${change.key} was not a stream: ${brief(change.before)}`);
    if (JSON.stringify(now.slice(0, was.length)) !== JSON.stringify(was)) problems.push(`${change.key}: an audit chain must only be appended to`);
    const fresh = now.slice(was.length);
    if (JSON.stringify(fresh.map((entry) => entry.id)) !== JSON.stringify(change.appended)) {
      problems.push(`${change.key}: entries appended during the call (${change.appended.join(' ')}) are not the new entries (${fresh.map((entry) => entry.id).join(' ')})`);
    }
    for (const entry of fresh) {
      const event = storedEvent(entry, tenant);
      if (!event) {
        problems.push(`${change.key}: an unreadable audit entry ${JSON.stringify(entry).slice(0, 200)}`);
        continue;
      }
      if (event.type !== 'refused' || event.reason !== refusal.error) {
        problems.push(`${change.key}: a refusal (${refusal.error}) audited ${event.type}${event.reason ? ` (${event.reason})` : ''}${event.auth_req_id ? ` for ${event.auth_req_id}` : ''}`);
      } else if (event.auth_req_id !== undefined) {
        const key = `auditidx:{${tenant}}:${event.auth_req_id}`;
        indexed.set(key, [...(indexed.get(key) ?? []), entry.id]);
      }
    }
  }
  for (const change of changes) {
    if (CHAIN.test(change.key) && change.group === undefined) continue;
    if (change.before?.kind === 'unreadable' || change.after?.kind === 'unreadable') {
      problems.push(`${change.key} cannot be read, so its change cannot be checked: ${brief(change.before?.kind === 'unreadable' ? change.before : change.after)}`);
      continue;
    }
    const audit = CHAIN_INDEX.exec(change.key);
    if (audit) {
      const authReqId = audit[2]!;
      if (!REQUEST_ID.test(authReqId)) problems.push(`an audit index opened under a malformed request id: ${change.key.slice(0, 200)}`);
      const was = change.before === null ? [] : change.before.kind === 'string' ? change.before.value.split(' ') : change.before.kind === 'list' ? change.before.value : null;
      if (was === null || change.after?.kind !== 'string') {
        problems.push(`${change.key} is not a stream index: ${brief(change.before)} → ${brief(change.after)}`);
        continue;
      }
      const now = change.after.value.split(' ');
      const added = now.slice(was.length);
      const expected = indexed.get(change.key) ?? [];
      if (JSON.stringify(now.slice(0, was.length)) !== JSON.stringify(was) || added.length === 0 || added.some((id) => !expected.includes(id))) {
        problems.push(`${change.key}: an index may only gain the ids of the refused events of its request (${expected.join(' ') || 'none'}), but went ${brief(change.before)} → ${brief(change.after)}`);
      }
      continue;
    }
    if (change.group === undefined && refusal.consumes?.test(change.key) && change.before !== null && change.after === null) continue;
    problems.push(`a refused call changed ${change.key}${change.group ? ` (group ${change.group})` : ''}: ${brief(change.before)} → ${brief(change.after)}${change.appended.length ? ` (appended ${change.appended.join(' ')})` : ''}`);
  }
  return problems;
}

/** Fails the test with every change a refusal left that the design does not allow; see {@link disallowedChanges}. */
export function expectOnlyAllowedChanges(changes: Change[], refusal: Refusal): void {
  const problems = disallowedChanges(changes, refusal);
  if (problems.length > 0) expect.fail(problems.join('\n'));
}
