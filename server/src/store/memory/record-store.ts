/** The `RecordStore` operations of `MemoryStore` (memory-store.ts): strings and hashes. */
import { checkIncrements } from '../bounded-increment.ts';
import { checkThrottleRule } from '../throttle-rule.ts';
import type { CasResult, CompareAndSetOptions, Fields, Guard, ThrottleResult, ThrottleRule } from '../types.ts';
import type { MemoryState } from './state.ts';

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

export function get(s: MemoryState, key: string): string | null {
  return s.of(key, 'string')?.value ?? null;
}

export function set(s: MemoryState, key: string, value: string, options: { ttlSeconds?: number; onlyIfAbsent?: boolean } = {}): boolean {
  if (options.onlyIfAbsent && s.live(key)) return false;
  s.entries.set(key, { data: { kind: 'string', value }, expiresAt: s.expiry(options.ttlSeconds) });
  return true;
}

export function take(s: MemoryState, key: string): string | null {
  const value = s.of(key, 'string')?.value ?? null;
  s.entries.delete(key);
  return value;
}

export function replace(s: MemoryState, key: string, expected: string, value: string): boolean {
  const current = s.of(key, 'string');
  if (current?.value !== expected) return false;
  current.value = value;
  return true;
}

export function deleteKey(s: MemoryState, key: string): boolean {
  const existed = s.live(key) !== undefined;
  s.entries.delete(key);
  return existed;
}

export function time(): number {
  return Date.now();
}

export function hashCreate(s: MemoryState, key: string, fields: Fields, ttlSeconds: number): boolean {
  if (s.live(key)) return false;
  s.entries.set(key, { data: { kind: 'hash', value: new Map(Object.entries(fields)) }, expiresAt: s.expiry(ttlSeconds) });
  return true;
}

export function hashGet(s: MemoryState, key: string): Fields | null {
  const hash = s.of(key, 'hash');
  return hash ? Object.fromEntries(hash.value) : null;
}

export function hashGetField(s: MemoryState, key: string, field: string): string | null {
  return s.of(key, 'hash')?.value.get(field) ?? null;
}

export function hashLength(s: MemoryState, key: string): number {
  return s.of(key, 'hash')?.value.size ?? 0;
}

export function hashSet(s: MemoryState, key: string, fields: Fields, ttlSeconds?: number): void {
  const hash = s.ensure(key, 'hash', () => new Map());
  for (const [field, value] of Object.entries(fields)) hash.value.set(field, value);
  s.touch(key, ttlSeconds);
}

export function hashDelete(s: MemoryState, key: string, field: string): boolean {
  const hash = s.of(key, 'hash');
  if (!hash) return false;
  const existed = hash.value.delete(field);
  if (hash.value.size === 0) s.entries.delete(key);
  return existed;
}

export function compareAndSet(s: MemoryState, key: string, guards: Guard[], set: Fields, options: CompareAndSetOptions = {}): CasResult {
  const increments = checkIncrements(options.increments);
  const hash = s.of(key, 'hash');
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
  s.touch(key, options.ttlSeconds);
  return { ok: true, fields: Object.fromEntries(hash.value) };
}

export function hashThrottle(s: MemoryState, key: string, rule: ThrottleRule): ThrottleResult {
  const { nowMs, intervalField, nextAtField, unitMs, defaultInterval, earlyIncrement, leewayMs } = checkThrottleRule(rule);
  const hash = s.of(key, 'hash');
  if (!hash) return { status: 'missing', fields: null };
  let interval = decimal(hash.value.get(intervalField) ?? String(defaultInterval));
  const next = hash.value.get(nextAtField);
  const early = next !== undefined && nowMs < decimal(next) - leewayMs;
  if (early) interval += earlyIncrement;
  hash.value.set(intervalField, String(interval));
  hash.value.set(nextAtField, String(nowMs + interval * unitMs));
  return { status: early ? 'early' : 'ok', fields: Object.fromEntries(hash.value) };
}
