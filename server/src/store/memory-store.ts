import { checkIncrements } from './bounded-increment.ts';
import { checkSortedArguments } from './sorted-arguments.ts';
import { checkManyEntries, checkTrim, indexIds, parseStreamId } from './stream-index.ts';
import { rateDecision, rateSteps } from './rate-entry.ts';
import { checkThrottleRule } from './throttle-rule.ts';
import { checkWindowEntry, checkWindowMember } from './window-entry.ts';
import type { CasResult, CompareAndSetOptions, Fields, Guard, RateEntry, RateResult, SortedWindowEntry, SortedWindowResult, Store, StreamAppendManyResult, StreamClaimResult, StreamConsumer, StreamEntry, StreamIndex, StreamMark, StreamTrimResult, ThrottleResult, ThrottleRule, WindowEntry, WindowResult } from './types.ts';

/** A sorted set: each member's score, and the members in (score, member) order for range reads. */
interface Sorted { scores: Map<string, number>; order: { score: number; member: string }[] }
/** A stream: its entries oldest first, and the last id it generated (Redis's `last-generated-id`). */
interface Stream { entries: StreamEntry[]; lastMs: number; lastSeq: number; groups?: Map<string, Group> }
/** One delivered, unacknowledged entry of a group: its consumer and when it was delivered to it (ms). */
interface PendingEntry { consumer: string; deliveredAt: number }
/**
 * A consumer group: the last id it delivered, and its pending entries in id order (entries are
 * delivered in id order and a claim changes an entry in place, so the map's order is the id order).
 */
interface Group { lastDelivered: [number, number]; pending: Map<string, PendingEntry>; consumers: Map<string, { seenAt: number }> }
/**
 * A sliding window ({@link MemoryStore.windowAdd}): its entries oldest first (a queue, as the Redis
 * list), the running totals per currency (only those above 0), and the newest time added (for the
 * TTL, as the Lua keeps it).
 */
interface Window {
  entries: { score: number; member: string; amounts: [string, number][] }[];
  totals: Map<string, number>;
  newest: number;
}
type Value = { kind: 'window'; value: Window } | { kind: 'string'; value: string } | { kind: 'hash'; value: Map<string, string> } | { kind: 'set'; value: Set<string> } | { kind: 'sorted'; value: Sorted } | { kind: 'stream'; value: Stream };
interface Entry { data: Value; expiresAt: number | undefined }

/** Options of {@link MemoryStore}. */
export interface MemoryStoreOptions {
  /** The clock for TTLs, epoch milliseconds; `Date.now` by default. */
  now?: () => number;
}

/**
 * A numeric field's value: a plain decimal as the server writes them (epoch ms, seconds), else
 * NaN, so a numeric guard on anything else fails. The Lua in redis-store.ts applies the same rule.
 */
export function decimal(value: string): number {
  return /^-?\d+(\.\d+)?$/.test(value) ? Number(value) : Number.NaN;
}

/** Evaluates one guard against a record, as the compare-and-set Lua script of redis-store.ts does. */
export function guardHolds(fields: Map<string, string>, guard: Guard): boolean {
  const current = fields.get(guard.field);
  switch (guard.op) {
    case 'absent':
      return current === undefined;
    case 'present':
      return current !== undefined;
    case 'eq':
      return current === guard.value;
    case 'ne':
      return current !== undefined && current !== guard.value;
    case 'lt':
      return current !== undefined && decimal(current) < guard.value;
    case 'gt':
      return current !== undefined && decimal(current) > guard.value;
  }
}

/** Redis's order of a sorted set: by score, then by member (byte order, the same for ASCII members). */
function compareEntries(a: { score: number; member: string }, b: { score: number; member: string }): number {
  if (a.score !== b.score) return a.score < b.score ? -1 : 1;
  return a.member < b.member ? -1 : a.member > b.member ? 1 : 0;
}

/** The first index of `order` whose entry does not sort before `probe` (binary search). */
function lowerBound(order: { score: number; member: string }[], probe: { score: number; member: string }): number {
  let [low, high] = [0, order.length];
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (compareEntries(order[middle]!, probe) < 0) low = middle + 1;
    else high = middle;
  }
  return low;
}

function addTotal(totals: Map<string, number>, currency: string, amount: number): void {
  const total = (totals.get(currency) ?? 0) + amount;
  if (total > 0) totals.set(currency, total);
  else totals.delete(currency);
}

/**
 * The in-memory {@link Store}: the embedded default when `REDIS_URL` is unset. Every operation
 * runs to completion inside one turn of the event loop, which is what makes it atomic. It keeps
 * nothing across restarts and is for development and tests only.
 */
export class MemoryStore implements Store {
  readonly kind = 'memory' as const;
  readonly #entries = new Map<string, Entry>();
  readonly #now: () => number;

  constructor(options: MemoryStoreOptions = {}) {
    this.#now = options.now ?? Date.now;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry?.expiresAt !== undefined && entry.expiresAt <= this.#now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry;
  }

  #of<K extends Value['kind']>(key: string, kind: K): Extract<Value, { kind: K }> | undefined {
    const entry = this.#live(key);
    if (!entry) return undefined;
    if (entry.data.kind !== kind) throw new TypeError(`WRONGTYPE: ${key} holds a ${entry.data.kind}`);
    return entry.data as Extract<Value, { kind: K }>;
  }

  #expiry(ttlSeconds: number | undefined): number | undefined {
    return ttlSeconds === undefined ? undefined : this.#now() + ttlSeconds * 1000;
  }

  #touch(key: string, ttlSeconds: number | undefined): void {
    const entry = this.#entries.get(key);
    if (entry && ttlSeconds !== undefined) entry.expiresAt = this.#expiry(ttlSeconds);
  }

  #ensure<K extends Value['kind']>(key: string, kind: K, make: () => Extract<Value, { kind: K }>['value']): Extract<Value, { kind: K }> {
    const existing = this.#of(key, kind);
    if (existing) return existing;
    const data = { kind, value: make() } as unknown as Extract<Value, { kind: K }>;
    this.#entries.set(key, { data, expiresAt: undefined });
    return data;
  }

  async get(key: string): Promise<string | null> {
    return this.#of(key, 'string')?.value ?? null;
  }

  async set(key: string, value: string, options: { ttlSeconds?: number; onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    if (options.onlyIfAbsent && this.#live(key)) return false;
    this.#entries.set(key, { data: { kind: 'string', value }, expiresAt: this.#expiry(options.ttlSeconds) });
    return true;
  }

  async take(key: string): Promise<string | null> {
    const value = this.#of(key, 'string')?.value ?? null;
    this.#entries.delete(key);
    return value;
  }

  async replace(key: string, expected: string, value: string): Promise<boolean> {
    const current = this.#of(key, 'string');
    if (current?.value !== expected) return false;
    current.value = value;
    return true;
  }

  async delete(key: string): Promise<boolean> {
    const existed = this.#live(key) !== undefined;
    this.#entries.delete(key);
    return existed;
  }

  async time(): Promise<number> {
    return Date.now();
  }

  async hashCreate(key: string, fields: Fields, ttlSeconds: number): Promise<boolean> {
    if (this.#live(key)) return false;
    this.#entries.set(key, { data: { kind: 'hash', value: new Map(Object.entries(fields)) }, expiresAt: this.#expiry(ttlSeconds) });
    return true;
  }

  async hashGet(key: string): Promise<Fields | null> {
    const hash = this.#of(key, 'hash');
    return hash ? Object.fromEntries(hash.value) : null;
  }

  async hashGetField(key: string, field: string): Promise<string | null> {
    return this.#of(key, 'hash')?.value.get(field) ?? null;
  }

  async hashLength(key: string): Promise<number> {
    return this.#of(key, 'hash')?.value.size ?? 0;
  }

  async hashSet(key: string, fields: Fields, ttlSeconds?: number): Promise<void> {
    const hash = this.#ensure(key, 'hash', () => new Map());
    for (const [field, value] of Object.entries(fields)) hash.value.set(field, value);
    this.#touch(key, ttlSeconds);
  }

  async hashDelete(key: string, field: string): Promise<boolean> {
    const hash = this.#of(key, 'hash');
    if (!hash) return false;
    const existed = hash.value.delete(field);
    if (hash.value.size === 0) this.#entries.delete(key);
    return existed;
  }

  async compareAndSet(key: string, guards: Guard[], set: Fields, options: CompareAndSetOptions = {}): Promise<CasResult> {
    const increments = checkIncrements(options.increments);
    const hash = this.#of(key, 'hash');
    if (!hash) return { ok: false, fields: null, failedGuard: -1 };
    const failed = guards.findIndex((guard) => !guardHolds(hash.value, guard));
    if (failed !== -1) return { ok: false, fields: Object.fromEntries(hash.value), failedGuard: failed };
    // As the Lua does: every bound checked before anything is written, a non-integer counter fails.
    const over = increments.findIndex((inc) => {
      const have = hash.value.get(inc.field) ?? '0';
      return !/^\d+$/.test(have) || Number(have) + inc.by > inc.max;
    });
    if (over !== -1) return { ok: false, fields: Object.fromEntries(hash.value), failedGuard: guards.length + over };
    for (const [field, value] of Object.entries(set)) hash.value.set(field, value);
    for (const inc of increments) hash.value.set(inc.field, String(Number(hash.value.get(inc.field) ?? '0') + inc.by));
    if (options.outbox !== undefined && options.outbox !== '') {
      // As the Lua does: HINCRBY of `seq` (a missing field counts from 0), then the entry under it.
      const seq = decimal(hash.value.get('seq') ?? '0') + 1;
      hash.value.set('seq', String(seq));
      hash.value.set(`ob:${seq}`, options.outbox);
    }
    this.#touch(key, options.ttlSeconds);
    return { ok: true, fields: Object.fromEntries(hash.value) };
  }

  async hashThrottle(key: string, rule: ThrottleRule): Promise<ThrottleResult> {
    const { nowMs, intervalField, nextAtField, unitMs, defaultInterval, earlyIncrement, leewayMs } = checkThrottleRule(rule);
    const hash = this.#of(key, 'hash');
    if (!hash) return { status: 'missing', fields: null };
    let interval = decimal(hash.value.get(intervalField) ?? String(defaultInterval));
    const next = hash.value.get(nextAtField);
    const early = next !== undefined && nowMs < decimal(next) - leewayMs;
    if (early) interval += earlyIncrement;
    hash.value.set(intervalField, String(interval));
    hash.value.set(nextAtField, String(nowMs + interval * unitMs));
    return { status: early ? 'early' : 'ok', fields: Object.fromEntries(hash.value) };
  }

  async windowAdd(key: string, entry: WindowEntry): Promise<WindowResult> {
    const { amounts, maxAmounts } = checkWindowEntry(entry);
    const floor = entry.nowMs - entry.windowMs;
    const window: Window = this.#of(key, 'window')?.value ?? { entries: [], totals: new Map(), newest: Number.NEGATIVE_INFINITY };
    // As the Lua of redis-scripts.ts: drop what left the window from the front (oldest first), then add.
    let expired = 0;
    while (expired < window.entries.length && window.entries[expired]!.score <= floor) {
      for (const [currency, amount] of window.entries[expired]!.amounts) addTotal(window.totals, currency, -amount);
      expired++;
    }
    window.entries.splice(0, expired);
    const count = window.entries.length;
    const weight = new Map(amounts);
    let exceeded: WindowResult['exceeded'];
    if (count + 1 > entry.maxCount) exceeded = 'count';
    else if (maxAmounts.some(([currency, max]) => (window.totals.get(currency) ?? 0) + (weight.get(currency) ?? 0) > max)) exceeded = 'amount';
    if (!exceeded) {
      window.entries.push({ score: entry.nowMs, member: entry.member, amounts });
      for (const [currency, amount] of amounts) addTotal(window.totals, currency, amount);
      window.newest = Math.max(window.newest, entry.nowMs);
    }
    const totals = Object.fromEntries(window.totals);
    if (window.entries.length === 0) this.#entries.delete(key);
    else if (!exceeded) this.#entries.set(key, { data: { kind: 'window', value: window }, expiresAt: this.#now() + Math.max(1, window.newest + entry.windowMs - entry.nowMs) });
    return exceeded ? { ok: false, count, totals, exceeded } : { ok: true, count: count + 1, totals };
  }

  async windowRemove(key: string, member: string): Promise<boolean> {
    checkWindowMember(member);
    const window = this.#of(key, 'window')?.value;
    const at = window ? window.entries.findLastIndex((e) => e.member === member) : -1;
    if (!window || at === -1) return false;
    for (const [currency, amount] of window.entries[at]!.amounts) addTotal(window.totals, currency, -amount);
    window.entries.splice(at, 1);
    if (window.entries.length === 0) this.#entries.delete(key);
    return true;
  }

  async sortedWindowAdd(key: string, entry: SortedWindowEntry): Promise<SortedWindowResult> {
    const { score } = checkWindowEntry(entry);
    const floor = entry.nowMs - entry.windowMs;
    const sorted = this.#of(key, 'sorted')?.value ?? { scores: new Map<string, number>(), order: [] };
    // As the Lua of redis-scripts.ts: drop what left the window (a prefix of the order), then add.
    const expired = sorted.order.findIndex((e) => e.score > floor);
    for (const gone of sorted.order.splice(0, expired === -1 ? sorted.order.length : expired)) sorted.scores.delete(gone.member);
    const old = sorted.scores.get(entry.member);
    const count = sorted.scores.size;
    const ok = old !== undefined || count + 1 <= entry.maxCount;
    if (ok) {
      if (old !== undefined) sorted.order.splice(lowerBound(sorted.order, { score: old, member: entry.member }), 1);
      const probe = { score, member: entry.member };
      sorted.order.splice(lowerBound(sorted.order, probe), 0, probe);
      sorted.scores.set(entry.member, score);
    }
    if (sorted.scores.size === 0) this.#entries.delete(key);
    else if (ok) this.#entries.set(key, { data: { kind: 'sorted', value: sorted }, expiresAt: this.#now() + Math.max(1, sorted.order.at(-1)!.score + entry.windowMs - entry.nowMs) });
    return { ok, count: ok && old === undefined ? count + 1 : count };
  }

  async sortedWindowMembers(key: string, nowMs: number, windowMs: number): Promise<string[]> {
    checkSortedArguments(nowMs - windowMs);
    return (this.#of(key, 'sorted')?.value.order ?? []).filter((e) => e.score > nowMs - windowMs).map((e) => e.member);
  }

  async rateLimit(key: string, entry: RateEntry): Promise<RateResult> {
    const steps = rateSteps(entry);
    const stored = this.#of(key, 'string')?.value;
    // As the Lua of redis-scripts.ts: a schedule that is not a plain number starts again from now.
    const { next, over } = rateDecision(stored === undefined ? null : decimal(stored), entry.nowMs, steps);
    if (over > 0) return { ok: false, retryAfterMs: over };
    if (!entry.peek) this.#entries.set(key, { data: { kind: 'string', value: String(next) }, expiresAt: this.#now() + (next - entry.nowMs) });
    return { ok: true, retryAfterMs: 0 };
  }

  async setAdd(key: string, member: string, ttlSeconds?: number): Promise<void> {
    this.#ensure(key, 'set', () => new Set()).value.add(member);
    this.#touch(key, ttlSeconds);
  }

  async setRemove(key: string, member: string): Promise<void> {
    const set = this.#of(key, 'set');
    set?.value.delete(member);
    if (set?.value.size === 0) this.#entries.delete(key);
  }

  async setMembers(key: string): Promise<string[]> {
    return [...(this.#of(key, 'set')?.value ?? [])];
  }

  async sortedAdd(key: string, member: string, score: number, ttlSeconds?: number): Promise<void> {
    checkSortedArguments(score);
    const sorted = this.#ensure(key, 'sorted', () => ({ scores: new Map(), order: [] })).value;
    const old = sorted.scores.get(member);
    if (old !== undefined) sorted.order.splice(lowerBound(sorted.order, { score: old, member }), 1);
    const entry = { score, member };
    sorted.order.splice(lowerBound(sorted.order, entry), 0, entry);
    sorted.scores.set(member, score);
    this.#touch(key, ttlSeconds);
  }

  async sortedRangeByScore(key: string, maxScore: number, limit: number): Promise<string[]> {
    checkSortedArguments(maxScore, limit);
    const order = this.#of(key, 'sorted')?.value.order ?? [];
    const members: string[] = [];
    // From the lowest score up: the walk stops at the first later deadline, as ZRANGE BYSCORE does.
    for (const entry of order) {
      if (entry.score > maxScore || members.length === limit) break;
      members.push(entry.member);
    }
    return members;
  }

  async sortedRangeAfter(key: string, after: string | null, limit: number): Promise<string[]> {
    checkSortedArguments(0, limit);
    const order = this.#of(key, 'sorted')?.value.order ?? [];
    const start = after === null ? 0 : lowerBound(order, { score: 0, member: after });
    const from = order[start]?.member === after ? start + 1 : start;
    return order.slice(from, from + limit).map((entry) => entry.member);
  }

  async sortedRemove(key: string, member: string): Promise<boolean> {
    const sorted = this.#of(key, 'sorted')?.value;
    const score = sorted?.scores.get(member);
    if (!sorted || score === undefined) return false;
    sorted.order.splice(lowerBound(sorted.order, { score, member }), 1);
    sorted.scores.delete(member);
    if (sorted.scores.size === 0) this.#entries.delete(key);
    return true;
  }



  async streamAppend(key: string, fields: Fields): Promise<string> {
    return this.#streamAppend(key, fields);
  }

  #streamAppend(key: string, fields: Fields): string {
    if (Object.keys(fields).length === 0) throw new RangeError('streamAppend needs at least one field');
    const stream = this.#ensure(key, 'stream', () => ({ entries: [], lastMs: 0, lastSeq: -1 })).value;
    // As XADD *: the clock's milliseconds, and a sequence number while the clock stands still or goes back.
    const now = Math.floor(this.#now());
    if (now > stream.lastMs) [stream.lastMs, stream.lastSeq] = [now, 0];
    else stream.lastSeq += 1;
    const id = `${stream.lastMs}-${stream.lastSeq}`;
    stream.entries.push({ id, fields: { ...fields } });
    return id;
  }


  async streamAppendManyAfter(key: string, lastId: string | null, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): Promise<StreamAppendManyResult> {
    checkManyEntries(key, entries, indexes);
    const newest = this.#of(key, 'stream')?.value.entries.at(-1) ?? null;
    if ((newest?.id ?? null) !== lastId) return { ok: false, last: newest ? { id: newest.id, fields: { ...newest.fields } } : null };
    // An index key of another type throws (WRONGTYPE) here, before anything is written.
    for (const index of indexes) if (index) this.#of(index.key, 'string');
    // An entry whose once-token its index holds was appended before: nothing is written.
    // So is the second of two entries of one batch with the same token.
    const seen = new Set<string>();
    const duplicate = indexes.findIndex((index) => {
      if (index?.once === undefined) return false;
      const token = `${index.key}#${index.once}`;
      if (seen.has(token) || ` ${this.#of(index.key, 'string')?.value ?? ''} `.includes(`#${index.once} `)) return true;
      seen.add(token);
      return false;
    });
    if (duplicate !== -1) return { ok: false, duplicate };
    // Checked, appended and indexed in one synchronous step: nothing can append in between.
    const ids = entries.map((fields) => this.#streamAppend(key, fields));
    ids.forEach((id, i) => {
      const index = indexes[i];
      if (!index) return;
      // The ids separated by spaces, as the Redis store keeps them (see `StreamIndex`).
      const text = this.#ensure(index.key, 'string', () => '');
      const word = index.once === undefined ? id : `${id}#${index.once}`;
      text.value = text.value === '' ? word : `${text.value} ${word}`;
      this.#touch(index.key, index.ttlSeconds);
    });
    return { ok: true, ids };
  }

  async streamGet(key: string, ids: readonly string[]): Promise<(StreamEntry | null)[]> {
    const entries = this.#of(key, 'stream')?.value.entries ?? [];
    return ids.map((id) => {
      const wanted = parseStreamId(id);
      // Entries are in id order: a binary search, as a chain grows without bound.
      let [low, high] = [0, entries.length];
      while (low < high) {
        const middle = (low + high) >>> 1;
        if (compareStreamIds(parseStreamId(entries[middle]!.id), wanted) < 0) low = middle + 1;
        else high = middle;
      }
      const found = entries[low];
      return found && found.id === `${wanted[0]}-${wanted[1]}` ? { id: found.id, fields: { ...found.fields } } : null;
    });
  }

  async streamIndexRead(key: string): Promise<string[]> {
    const text = this.#of(key, 'string')?.value ?? '';
    return text === '' ? [] : indexIds(text.split(' '));
  }

  async streamRange(key: string, afterId?: string, count?: number): Promise<StreamEntry[]> {
    if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
    const entries = this.#of(key, 'stream')?.value.entries ?? [];
    const after = afterId === undefined ? null : parseStreamId(afterId);
    const later = after === null ? entries : entries.filter(({ id }) => {
      const [ms, seq] = parseStreamId(id);
      return ms > after[0] || (ms === after[0] && seq > after[1]);
    });
    return later.slice(0, count ?? later.length).map((entry) => ({ id: entry.id, fields: { ...entry.fields } }));
  }

  async streamTrimBefore(key: string, minId: string, mark: StreamMark): Promise<StreamTrimResult> {
    checkTrim(key, minId, mark);
    // Type errors (WRONGTYPE) first, before anything is written.
    const current = this.#of(mark.key, 'hash')?.value;
    const stream = this.#of(key, 'stream')?.value;
    const markNow = () => (current && current.size > 0 ? Object.fromEntries(current) : null);
    const min = parseStreamId(minId);
    if ((current?.get('id') ?? null) !== mark.ifId) return { ok: false, mark: markNow() };
    if (!stream?.entries.some(({ id }) => compareStreamIds(parseStreamId(id), min) === 0)) return { ok: false, mark: markNow() };
    // Checked, trimmed and marked in one synchronous step, as the Lua does.
    const before = stream.entries.length;
    stream.entries = stream.entries.filter(({ id }) => compareStreamIds(parseStreamId(id), min) >= 0);
    const hash = this.#ensure(mark.key, 'hash', () => new Map()).value;
    for (const [field, value] of Object.entries(mark.fields)) hash.set(field, value);
    return { ok: true, trimmed: before - stream.entries.length };
  }

  async streamGroupCreate(key: string, group: string): Promise<boolean> {
    const stream = this.#ensure(key, 'stream', () => ({ entries: [], lastMs: 0, lastSeq: -1 })).value;
    stream.groups ??= new Map();
    if (stream.groups.has(group)) return false;
    stream.groups.set(group, { lastDelivered: [0, 0], pending: new Map(), consumers: new Map() });
    return true;
  }

  async streamGroupRead(key: string, group: string, consumer: string, count: number): Promise<StreamEntry[] | null> {
    checkCount(count);
    const stream = this.#of(key, 'stream')?.value;
    const state = stream?.groups?.get(group);
    if (!stream || !state) return null;
    const after = state.lastDelivered;
    const fresh = stream.entries.filter(({ id }) => compareStreamIds(parseStreamId(id), after) > 0).slice(0, count);
    const now = this.#now();
    // As XREADGROUP (Redis 7.0): a delivery creates the consumer and counts as seen; a read of nothing neither.
    if (fresh.length > 0) state.consumers.set(consumer, { seenAt: now });
    for (const entry of fresh) state.pending.set(entry.id, { consumer, deliveredAt: now });
    if (fresh.length > 0) state.lastDelivered = parseStreamId(fresh.at(-1)!.id);
    return fresh.map((entry) => ({ id: entry.id, fields: { ...entry.fields } }));
  }

  async streamAck(key: string, group: string, ids: string[]): Promise<number> {
    const stream = this.#of(key, 'stream')?.value;
    if (!stream || ids.length === 0) return 0;
    const state = stream.groups?.get(group);
    const acked = ids.filter((id) => state?.pending.delete(id) === true).length;
    const gone = new Set(ids);
    stream.entries = stream.entries.filter((entry) => !gone.has(entry.id));
    return acked;
  }

  async streamClaim(key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): Promise<StreamClaimResult | null> {
    checkCount(options.count);
    if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
    const stream = this.#of(key, 'stream')?.value;
    const state = stream?.groups?.get(group);
    if (!stream || !state) return null;
    const from = parseStreamId(options.cursor ?? '0-0');
    const now = this.#now();
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

  async streamConsumers(key: string, group: string): Promise<StreamConsumer[]> {
    const state = this.#of(key, 'stream')?.value.groups?.get(group);
    if (!state) return [];
    const now = this.#now();
    const pending = new Map<string, number>();
    for (const entry of state.pending.values()) pending.set(entry.consumer, (pending.get(entry.consumer) ?? 0) + 1);
    return [...state.consumers].map(([name, { seenAt }]) => ({ name, pending: pending.get(name) ?? 0, idleMs: Math.max(0, now - seenAt) }));
  }

  async streamConsumerRemove(key: string, group: string, consumer: string, options: { minIdleMs: number }): Promise<boolean> {
    if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
    const state = this.#of(key, 'stream')?.value.groups?.get(group);
    const seen = state?.consumers.get(consumer);
    if (!state || !seen) return false;
    if (this.#now() - seen.seenAt < options.minIdleMs) return false;
    for (const entry of state.pending.values()) if (entry.consumer === consumer) return false;
    state.consumers.delete(consumer);
    return true;
  }

  async streamLength(key: string): Promise<number> {
    return this.#of(key, 'stream')?.value.entries.length ?? 0;
  }

  async streamPendingCount(key: string, group: string): Promise<number> {
    return this.#of(key, 'stream')?.value.groups?.get(group)?.pending.size ?? 0;
  }

  async close(): Promise<void> {
    this.#entries.clear();
  }

  /**
   * The keys that hold a value now (expired ones left out), in no particular order: for tests and
   * diagnostics that count what the server stored, as SCAN does on Redis. Not part of {@link Store}.
   */
  keyNames(): string[] {
    return [...this.#entries.keys()].filter((key) => this.#live(key) !== undefined);
  }
}

/** Refuses a count that is not a positive whole number, as Redis would. */
function checkCount(count: number): void {
  if (!(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
}

/** Orders two parsed stream ids as Redis does: by milliseconds, then by sequence. */
function compareStreamIds(a: [number, number], b: [number, number]): number {
  return a[0] - b[0] || a[1] - b[1];
}
