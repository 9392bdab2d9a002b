/** The `WindowStore` operations of `RedisStore` (redis-store.ts): sliding windows and rate limits. */
import { rateSteps } from '../rate-entry.ts';
import { checkSortedArguments } from '../sorted-arguments.ts';
import type { RateEntry, RateResult, SortedWindowEntry, SortedWindowResult, WindowEntry, WindowResult } from '../types.ts';
import { checkWindowEntry, checkWindowMember } from '../window-entry.ts';
import { scoreArg } from './arguments.ts';
import type { RedisState } from './state.ts';

export async function windowAdd(s: RedisState, key: string, entry: WindowEntry): Promise<WindowResult> {
  const { amounts, maxAmounts } = checkWindowEntry(entry);
  const args = [entry.nowMs, entry.windowMs, entry.member, entry.maxCount, amounts.length, ...amounts.flat(), maxAmounts.length, ...maxAmounts.flat()].map(String);
  const [verdict, count, ...flat] = (await s.scripts.countersignWindowAdd(s.key(key), ...args)) as [string, number, ...string[]];
  const totals: Record<string, number> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) totals[flat[i]!] = Number(flat[i + 1]);
  return verdict === 'ok' ? { ok: true, count, totals } : { ok: false, count, totals, exceeded: verdict as 'count' | 'amount' };
}

export async function windowRemove(s: RedisState, key: string, member: string): Promise<boolean> {
  checkWindowMember(member);
  return (await s.scripts.countersignWindowRemove(s.key(key), member)) === 1;
}

export async function sortedWindowAdd(s: RedisState, key: string, entry: SortedWindowEntry): Promise<SortedWindowResult> {
  const { score } = checkWindowEntry(entry);
  const [ok, count] = (await s.scripts.countersignSortedWindowAdd(s.key(key), String(entry.nowMs), String(entry.windowMs), entry.member, scoreArg(score), String(entry.maxCount), scoreArg(entry.nowMs - entry.windowMs))) as [number, number];
  return { ok: ok === 1, count };
}

export async function sortedWindowMembers(s: RedisState, key: string, nowMs: number, windowMs: number): Promise<string[]> {
  checkSortedArguments(nowMs - windowMs);
  return (await s.redis.call('ZRANGE', s.key(key), `(${scoreArg(nowMs - windowMs)}`, '+inf', 'BYSCORE')) as string[];
}

export async function rateLimit(s: RedisState, key: string, entry: RateEntry): Promise<RateResult> {
  const { step, span } = rateSteps(entry);
  const over = Number(await s.scripts.countersignRateLimit(s.key(key), String(entry.nowMs), String(step), String(span), entry.peek ? '1' : '0'));
  return { ok: over === 0, retryAfterMs: over };
}
