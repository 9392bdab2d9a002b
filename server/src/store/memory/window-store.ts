/** The `WindowStore` operations of `MemoryStore` (memory-store.ts): sliding windows and rate limits. */
import { rateDecision, rateSteps } from '../rate-entry.ts';
import { checkSortedArguments } from '../sorted-arguments.ts';
import type { RateEntry, RateResult, SortedWindowEntry, SortedWindowResult, WindowEntry, WindowResult } from '../types.ts';
import { checkWindowEntry, checkWindowMember } from '../window-entry.ts';
import { decimal } from './record-store.ts';
import { lowerBound } from './sorted-order.ts';
import type { MemoryState, Window } from './state.ts';

function addTotal(totals: Map<string, number>, currency: string, amount: number): void {
  const total = (totals.get(currency) ?? 0) + amount;
  if (total > 0) totals.set(currency, total);
  else totals.delete(currency);
}

export function windowAdd(s: MemoryState, key: string, entry: WindowEntry): WindowResult {
  const { amounts, maxAmounts } = checkWindowEntry(entry);
  const floor = entry.nowMs - entry.windowMs;
  const window: Window = s.of(key, 'window')?.value ?? { entries: [], totals: new Map(), newest: Number.NEGATIVE_INFINITY };
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
  if (window.entries.length === 0) s.entries.delete(key);
  else if (!exceeded) s.entries.set(key, { data: { kind: 'window', value: window }, expiresAt: s.now() + Math.max(1, window.newest + entry.windowMs - entry.nowMs) });
  return exceeded ? { ok: false, count, totals, exceeded } : { ok: true, count: count + 1, totals };
}

export function windowRemove(s: MemoryState, key: string, member: string): boolean {
  checkWindowMember(member);
  const window = s.of(key, 'window')?.value;
  const at = window ? window.entries.findLastIndex((e) => e.member === member) : -1;
  if (!window || at === -1) return false;
  for (const [currency, amount] of window.entries[at]!.amounts) addTotal(window.totals, currency, -amount);
  window.entries.splice(at, 1);
  if (window.entries.length === 0) s.entries.delete(key);
  return true;
}

export function sortedWindowAdd(s: MemoryState, key: string, entry: SortedWindowEntry): SortedWindowResult {
  const { score } = checkWindowEntry(entry);
  const floor = entry.nowMs - entry.windowMs;
  const sorted = s.of(key, 'sorted')?.value ?? { scores: new Map<string, number>(), order: [] };
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
  if (sorted.scores.size === 0) s.entries.delete(key);
  else if (ok) s.entries.set(key, { data: { kind: 'sorted', value: sorted }, expiresAt: s.now() + Math.max(1, sorted.order.at(-1)!.score + entry.windowMs - entry.nowMs) });
  return { ok, count: ok && old === undefined ? count + 1 : count };
}

export function sortedWindowMembers(s: MemoryState, key: string, nowMs: number, windowMs: number): string[] {
  checkSortedArguments(nowMs - windowMs);
  return (s.of(key, 'sorted')?.value.order ?? []).filter((e) => e.score > nowMs - windowMs).map((e) => e.member);
}

export function rateLimit(s: MemoryState, key: string, entry: RateEntry): RateResult {
  const steps = rateSteps(entry);
  const stored = s.of(key, 'string')?.value;
  // As the Lua of redis-scripts.ts: a schedule that is not a plain number starts again from now.
  const { next, over } = rateDecision(stored === undefined ? null : decimal(stored), entry.nowMs, steps);
  if (over > 0) return { ok: false, retryAfterMs: over };
  if (!entry.peek) s.entries.set(key, { data: { kind: 'string', value: String(next) }, expiresAt: s.now() + (next - entry.nowMs) });
  return { ok: true, retryAfterMs: 0 };
}
