/** The `IndexStore` operations of `RedisStore` (redis-store.ts): sets and sorted sets. */
import { checkSortedArguments } from '../sorted-arguments.ts';
import { scoreArg, ttlMs } from './arguments.ts';
import type { RedisState } from './state.ts';

export async function setAdd(s: RedisState, key: string, member: string, ttlSeconds?: number): Promise<void> {
  if (ttlSeconds === undefined) await s.redis.sadd(s.key(key), member);
  else await s.scripts.countersignSetAddTtl(s.key(key), String(ttlMs(ttlSeconds)), member);
}

export async function setRemove(s: RedisState, key: string, member: string): Promise<void> {
  await s.redis.srem(s.key(key), member);
}

export async function setMembers(s: RedisState, key: string): Promise<string[]> {
  return s.redis.smembers(s.key(key));
}

export async function sortedAdd(s: RedisState, key: string, member: string, score: number, ttlSeconds?: number): Promise<void> {
  checkSortedArguments(score);
  if (ttlSeconds === undefined) await s.redis.zadd(s.key(key), scoreArg(score), member);
  else await s.scripts.countersignSortedAddTtl(s.key(key), String(ttlMs(ttlSeconds)), scoreArg(score), member);
}

export async function sortedRangeByScore(s: RedisState, key: string, maxScore: number, limit: number): Promise<string[]> {
  checkSortedArguments(maxScore, limit);
  // ZRANGE … BYSCORE LIMIT (Redis ≥ 6.2, as GETDEL): O(log N + limit), so reading the due
  // deadlines costs what is due, however many requests are alive.
  return (await s.redis.call('ZRANGE', s.key(key), '-inf', scoreArg(maxScore), 'BYSCORE', 'LIMIT', '0', String(limit))) as string[];
}

export async function sortedRangeAfter(s: RedisState, key: string, after: string | null, limit: number): Promise<string[]> {
  checkSortedArguments(0, limit);
  return (await s.redis.call('ZRANGE', s.key(key), after === null ? '-' : `(${after}`, '+', 'BYLEX', 'LIMIT', '0', String(limit))) as string[];
}

export async function sortedRemove(s: RedisState, key: string, member: string): Promise<boolean> {
  return (await s.redis.zrem(s.key(key), member)) > 0;
}
