import type { MiddlewareHandler } from 'hono';
import { bearerAuth } from 'hono/bearer-auth';
import { HTTPException } from 'hono/http-exception';
import { sourceAddress } from '../http/index.ts';
import type { Config } from '../config/index.ts';
import { countRate, enforceRate, tooManyRequests, type RateLimitDeps } from '../rate-limits/index.ts';

/** What the admin token check reads: a subset of the server's `Deps`. */
export interface AdminAuthDeps extends RateLimitDeps {
  config: Pick<Config, 'rateLimits' | 'trustedProxies'>;
}

const DESCRIPTION = 'Too many wrong admin tokens from this address.';

/**
 * `Authorization: Bearer <ADMIN_TOKEN>` on the admin API (and so on the console, which calls it),
 * with a limit on wrong tokens per source address (`RATE_LIMIT_ADMIN_AUTH_FAILURES`, see
 * `http/source-address.ts`). Once an address is over it, every admin call from it is refused with
 * 429 before its token is even compared, the right token too: an operator may choose a guessable
 * token, and a limit that let the right one through would tell a guesser which guess was right.
 * A call with no `Authorization` header guesses nothing and is not counted; a success is never counted.
 *
 * @throws CountersignError 429 `too_many_requests` with `Retry-After` over the limit; otherwise
 *   bearerAuth's 401 `invalid_token` or 400 `invalid_request` (OAuth bodies, `WWW-Authenticate`).
 * @see RFC 6750 §3.1
 */
export function adminAuth(deps: AdminAuthDeps, adminToken: string): MiddlewareHandler {
  const check = bearerAuth({
    token: adminToken,
    noAuthenticationHeader: { message: { error: 'invalid_token', error_description: 'The admin token is required.' } },
    invalidAuthenticationHeader: { message: { error: 'invalid_request', error_description: 'Use Authorization: Bearer <ADMIN_TOKEN>.' } },
    invalidToken: { message: { error: 'invalid_token', error_description: 'The admin token is not valid.' } },
  });
  return async function adminTokenCheck(c, next) {
    const source = sourceAddress(c, deps.config.trustedProxies);
    const allowed = await countRate(deps, 'adminAuthFailures', source, { peek: true });
    if (!allowed.ok) throw tooManyRequests(allowed.retryAfterMs, DESCRIPTION);
    let passed = false;
    try {
      await check(c, async () => {
        passed = true;
        await next();
      });
    } catch (error) {
      if (passed || !(error instanceof HTTPException) || c.req.header('authorization') === undefined) throw error;
      await enforceRate(deps, 'adminAuthFailures', source, DESCRIPTION);
      throw error;
    }
  };
}
