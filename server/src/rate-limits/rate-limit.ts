import { CountersignError } from '@countersign/shared';
import type { Config, RateLimits } from '../config/index.ts';
import type { Clock } from '../runtime/index.ts';
import { type IndexStore, keys, type RateResult, type WindowStore } from '../store/index.ts';

/** One of the configured rate limits (`Config.rateLimits`, `RATE_LIMIT_*`). */
export type RateLimitName = keyof RateLimits;

/** What the rate limits read: a subset of the server's `Deps`. */
export interface RateLimitDeps {
  store: WindowStore & Pick<IndexStore, 'sortedRemove'>;
  clock: Clock;
  config: Pick<Config, 'rateLimits'>;
}

/** Whole seconds to wait, at least 1, for `Retry-After` (RFC 9110 §10.2.3). */
export function retryAfterSeconds(ms: number): number {
  return Math.max(1, Math.ceil(ms / 1000));
}

/**
 * 429 with `Retry-After` in seconds and an OAuth error body: `too_many_requests`, or `slow_down`
 * where CIBA has the word for it (a client polling `/token` too fast, CIBA Core §11).
 * @see RFC 6585 §4 (429 Too Many Requests), RFC 9110 §10.2.3 (Retry-After)
 */
export function tooManyRequests(retryAfterMs: number, description: string, code: 'too_many_requests' | 'slow_down' = 'too_many_requests'): CountersignError {
  const seconds = retryAfterSeconds(retryAfterMs);
  return new CountersignError(code, `${description} Retry after ${seconds} s.`, { status: 429, headers: { 'Retry-After': String(seconds) } });
}

/**
 * Counts one call of `subject` against the limit `limit`, or with `peek` only asks whether one
 * would fit. One atomic `Store.rateLimit` on the key `rate:{limit:subject}`, shared by every
 * instance on the same store, timed by the injected clock.
 *
 * Why a counter of our own rather than a rate-limit middleware (hono-rate-limiter and its Redis
 * store): the limits must count only what a handler knows after it ran (a FAILED authentication,
 * a client once it is authenticated), must read the injected clock so tests move time instead of
 * waiting, and must live in both stores of the `Store` interface (memory in development, Redis,
 * Redis Cluster), one key per counter. GCRA keeps one number per key (a fixed window's counter
 * would let twice the rate through across a window's edge), in one short Lua script.
 */
export async function countRate(deps: RateLimitDeps, limit: RateLimitName, subject: string, options: { peek?: boolean } = {}): Promise<RateResult> {
  const rate = deps.config.rateLimits[limit];
  return deps.store.rateLimit(keys.rate(limit, subject), { nowMs: deps.clock.now(), count: rate.count, windowMs: rate.seconds * 1000, ...(options.peek ? { peek: true } : {}) });
}

/**
 * Counts one call of `subject` against `limit` and refuses it when it does not fit. A refused call
 * writes nothing (not even the counter): the caller throws before it stores, audits or logs.
 * @throws CountersignError 429 `too_many_requests` (or `code`) with `Retry-After`.
 */
export async function enforceRate(deps: RateLimitDeps, limit: RateLimitName, subject: string, description: string, code?: 'too_many_requests' | 'slow_down'): Promise<void> {
  const result = await countRate(deps, limit, subject);
  if (!result.ok) throw tooManyRequests(result.retryAfterMs, description, code);
}
