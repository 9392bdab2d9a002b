import type { MiddlewareHandler } from 'hono';

/** The members that hold an instant: `at` and every `…_at` (`created_at`, `expires_at`, `blocked_at`). */
const INSTANT = /^(?:at|[a-z0-9_]+_at)$/;

/**
 * `value` with every number held by an instant member ({@link INSTANT}) written as RFC 3339 UTC
 * with milliseconds (`2026-12-04T01:20:37.000Z`), as the client API writes its times: the records
 * keep epoch milliseconds, which an operator reading an answer would have to convert by hand
 * (docs/design.md). Strings, nulls and every other member are left as they are.
 */
export function isoTimes(value: unknown, member = ''): unknown {
  if (typeof value === 'number') return INSTANT.test(member) && Number.isFinite(value) ? new Date(value).toISOString() : value;
  if (Array.isArray(value)) return value.map((item) => isoTimes(item));
  if (typeof value === 'object' && value !== null) return Object.fromEntries(Object.entries(value).map(([name, inner]) => [name, isoTimes(inner, name)]));
  return value;
}

/**
 * Writes the times of every JSON answer of the admin API with {@link isoTimes}, at the one
 * boundary all its routes share (the ones other modules register included), so no route can
 * leak epoch milliseconds. Error bodies have no instants and pass unchanged.
 */
export function isoTimesInAnswers(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    if (!(c.res.headers.get('content-type') ?? '').startsWith('application/json')) return;
    const body: unknown = await c.res.clone().json();
    const headers = new Headers(c.res.headers);
    headers.delete('content-length');
    // Through `c.res = undefined` first: hono would otherwise copy the old answer's headers over again.
    const status = c.res.status;
    c.res = undefined;
    c.res = new Response(JSON.stringify(isoTimes(body)), { status, headers });
  };
}
