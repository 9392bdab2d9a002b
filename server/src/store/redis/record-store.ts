/** The `RecordStore` operations of `RedisStore` (redis-store.ts): strings and hashes. */
import { checkIncrements } from '../bounded-increment.ts';
import { checkThrottleRule } from '../throttle-rule.ts';
import { LateSwapError } from '../types.ts';
import type { CasResult, CompareAndSetOptions, Fields, Guard, ThrottleResult, ThrottleRule } from '../types.ts';
import { pairs, ttlMs } from './arguments.ts';
import { toFields } from './replies.ts';
import type { RedisState } from './state.ts';

export async function get(s: RedisState, key: string): Promise<string | null> {
  return s.redis.get(s.key(key));
}

export async function set(s: RedisState, key: string, value: string, options: { ttlSeconds?: number; onlyIfAbsent?: boolean } = {}): Promise<boolean> {
  const args: (string | number)[] = options.ttlSeconds === undefined ? [] : ['PX', ttlMs(options.ttlSeconds)];
  if (options.onlyIfAbsent) args.push('NX');
  // SET … NX PX is one command: the value and its expiry are written together or not at all.
  const reply = await s.redis.call('SET', s.key(key), value, ...args);
  return reply === 'OK';
}

export async function take(s: RedisState, key: string): Promise<string | null> {
  // GETDEL (Redis ≥ 6.2), not GET then DEL: two concurrent takers cannot both read the value.
  return s.redis.getdel(s.key(key));
}

export async function replace(s: RedisState, key: string, expected: string, value: string): Promise<boolean> {
  return (await s.scripts.countersignReplace(s.key(key), expected, value)) === 1;
}

export async function deleteKey(s: RedisState, key: string): Promise<boolean> {
  return (await s.redis.del(s.key(key))) > 0;
}

export async function time(s: RedisState): Promise<number> {
  const [seconds, micros] = (await s.redis.time()) as [string | number, string | number];
  return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
}

/** @throws RangeError when `fields` is empty: Redis keeps no empty hash. */
export async function hashCreate(s: RedisState, key: string, fields: Fields, ttlSeconds: number): Promise<boolean> {
  if (Object.keys(fields).length === 0) throw new RangeError('hashCreate needs at least one field');
  const reply = await s.scripts.countersignHashCreate(s.key(key), String(ttlMs(ttlSeconds)), ...pairs(fields));
  return reply === 1;
}

export async function hashGet(s: RedisState, key: string): Promise<Fields | null> {
  // Redis keeps no empty hash, so an empty reply means there is no record.
  const fields = await s.redis.hgetall(s.key(key));
  return Object.keys(fields).length === 0 ? null : { ...fields };
}

export async function hashGetField(s: RedisState, key: string, field: string): Promise<string | null> {
  return s.redis.hget(s.key(key), field);
}

export async function hashLength(s: RedisState, key: string): Promise<number> {
  return s.redis.hlen(s.key(key));
}

export async function hashSet(s: RedisState, key: string, fields: Fields, ttlSeconds?: number): Promise<void> {
  const args = pairs(fields);
  if (ttlSeconds === undefined) {
    if (args.length > 0) await s.redis.hset(s.key(key), ...args);
  } else if (args.length > 0) {
    await s.scripts.countersignHashSetTtl(s.key(key), String(ttlMs(ttlSeconds)), ...args);
  } else {
    await s.redis.pexpire(s.key(key), ttlMs(ttlSeconds));
  }
}

export async function hashDelete(s: RedisState, key: string, field: string): Promise<boolean> {
  return (await s.redis.hdel(s.key(key), field)) > 0;
}

export async function compareAndSet(s: RedisState, key: string, guards: Guard[], set: Fields, options: CompareAndSetOptions = {}): Promise<CasResult> {
  const ttl = options.ttlSeconds === undefined ? '' : String(ttlMs(options.ttlSeconds));
  const notAfter = options.notAfterMs === undefined ? '' : String(Math.floor(options.notAfterMs));
  const flatGuards = guards.flatMap((g) => [g.field, g.op, 'value' in g ? String(g.value) : '']);
  const increments = checkIncrements(options.increments);
  const flatIncrements = increments.flatMap((inc) => [inc.field, String(inc.by), String(inc.max)]);
  const reply = (await s.scripts.countersignCompareAndSet(s.key(key), ttl, notAfter, options.outbox ?? '', String(guards.length), ...flatGuards, String(increments.length), ...flatIncrements, ...pairs(set))) as [string, number?, string[]?];
  if (reply[0] === 'late') throw new LateSwapError();
  if (reply[0] === 'missing') return { ok: false, fields: null, failedGuard: -1 };
  const fields = toFields(reply[2] ?? []);
  return reply[0] === 'ok' ? { ok: true, fields } : { ok: false, fields, failedGuard: reply[1] ?? -1 };
}

export async function hashThrottle(s: RedisState, key: string, rule: ThrottleRule): Promise<ThrottleResult> {
  const { nowMs, intervalField, nextAtField, unitMs, defaultInterval, earlyIncrement, leewayMs } = checkThrottleRule(rule);
  const args = [nowMs, leewayMs, intervalField, nextAtField, unitMs, defaultInterval, earlyIncrement].map(String);
  const reply = (await s.scripts.countersignHashThrottle(s.key(key), ...args)) as [ThrottleResult['status'], string[]?];
  return reply[0] === 'missing' ? { status: 'missing', fields: null } : { status: reply[0], fields: toFields(reply[1] ?? []) };
}
