/** The arguments the Redis store sends: TTLs, scores, field/value pairs. */
import type { Fields } from '../types.ts';

/** Seconds to the milliseconds PX and PEXPIRE take, so fractional TTLs are not truncated. */
export function ttlMs(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) throw new RangeError(`TTL must be a positive number of seconds, got ${ttlSeconds}`);
  return Math.ceil(ttlSeconds * 1000);
}

/** A score as Redis reads it: infinities spelled `+inf` / `-inf`, finite numbers in full. */
export function scoreArg(score: number): string {
  if (score === Number.POSITIVE_INFINITY) return '+inf';
  if (score === Number.NEGATIVE_INFINITY) return '-inf';
  return String(score);
}

export function pairs(fields: Fields): string[] {
  return Object.entries(fields).flat();
}
