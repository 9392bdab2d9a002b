/** The `IndexStore` operations of `MemoryStore` (memory-store.ts): sets and sorted sets. */
import { checkSortedArguments } from '../sorted-arguments.ts';
import { lowerBound } from './sorted-order.ts';
import type { MemoryState } from './state.ts';

export function setAdd(s: MemoryState, key: string, member: string, ttlSeconds?: number): void {
  s.ensure(key, 'set', () => new Set()).value.add(member);
  s.touch(key, ttlSeconds);
}

export function setRemove(s: MemoryState, key: string, member: string): void {
  const set = s.of(key, 'set');
  set?.value.delete(member);
  if (set?.value.size === 0) s.entries.delete(key);
}

export function setMembers(s: MemoryState, key: string): string[] {
  return [...(s.of(key, 'set')?.value ?? [])];
}

export function sortedAdd(s: MemoryState, key: string, member: string, score: number, ttlSeconds?: number): void {
  checkSortedArguments(score);
  const sorted = s.ensure(key, 'sorted', () => ({ scores: new Map(), order: [] })).value;
  const old = sorted.scores.get(member);
  if (old !== undefined) sorted.order.splice(lowerBound(sorted.order, { score: old, member }), 1);
  const entry = { score, member };
  sorted.order.splice(lowerBound(sorted.order, entry), 0, entry);
  sorted.scores.set(member, score);
  s.touch(key, ttlSeconds);
}

export function sortedRangeByScore(s: MemoryState, key: string, maxScore: number, limit: number): string[] {
  checkSortedArguments(maxScore, limit);
  const order = s.of(key, 'sorted')?.value.order ?? [];
  const members: string[] = [];
  // From the lowest score up: the walk stops at the first later deadline, as ZRANGE BYSCORE does.
  for (const entry of order) {
    if (entry.score > maxScore || members.length === limit) break;
    members.push(entry.member);
  }
  return members;
}

export function sortedRangeAfter(s: MemoryState, key: string, after: string | null, limit: number): string[] {
  checkSortedArguments(0, limit);
  const order = s.of(key, 'sorted')?.value.order ?? [];
  const start = after === null ? 0 : lowerBound(order, { score: 0, member: after });
  const from = order[start]?.member === after ? start + 1 : start;
  return order.slice(from, from + limit).map((entry) => entry.member);
}

export function sortedRemove(s: MemoryState, key: string, member: string): boolean {
  const sorted = s.of(key, 'sorted')?.value;
  const score = sorted?.scores.get(member);
  if (!sorted || score === undefined) return false;
  sorted.order.splice(lowerBound(sorted.order, { score, member }), 1);
  sorted.scores.delete(member);
  if (sorted.scores.size === 0) s.entries.delete(key);
  return true;
}
