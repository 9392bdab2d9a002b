import type { MiddlewareHandler } from 'hono';
import type { ServerResponse } from 'node:http';

/**
 * The Content-Security-Policy of every answer: the PWA and the console load everything from their
 * own origin (images also as `data:` URLs), may not be framed, and post no forms anywhere.
 */
export const CONTENT_SECURITY_POLICY = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; worker-src 'self'; manifest-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/** HSTS for two years, subdomains included (only ever sent when the server is reached over https). */
const HSTS = 'max-age=63072000; includeSubDomains';

/** Options of {@link securityHeaders}. */
export interface SecurityHeadersOptions {
  /**
   * Whether the server is reached over https (`PUBLIC_URL`): only then is
   * `Strict-Transport-Security` sent. On http://localhost it would only confuse a browser.
   */
  https: boolean;
}

/**
 * The security headers every answer carries, as name and value, in the order hono's
 * `secureHeaders` writes them (the set this replaces, byte for byte: see `security-headers.test.ts`).
 *
 * @see RFC 6797 (HSTS), CSP Level 3, Fetch §3.7 (CORP), HTML §7.1.3 (COOP)
 */
export function securityHeaderSet(options: SecurityHeadersOptions): ReadonlyArray<readonly [string, string]> {
  return [
    ['Cross-Origin-Resource-Policy', 'same-origin'],
    ['Cross-Origin-Opener-Policy', 'same-origin'],
    ['Origin-Agent-Cluster', '?1'],
    ['Referrer-Policy', 'no-referrer'],
    ...(options.https ? [['Strict-Transport-Security', HSTS] as const] : []),
    ['X-Content-Type-Options', 'nosniff'],
    ['X-DNS-Prefetch-Control', 'off'],
    ['X-Download-Options', 'noopen'],
    ['X-Frame-Options', 'DENY'],
    ['X-Permitted-Cross-Domain-Policies', 'none'],
    ['X-XSS-Protection', '0'],
    ['Content-Security-Policy', CONTENT_SECURITY_POLICY],
  ];
}

/**
 * Middleware that gives every answer the {@link securityHeaderSet}.
 *
 * hono's `secureHeaders` sets them on the finished response, after `next()`: that makes
 * @hono/node-server give up its prepared answer and build an undici `Headers` per request, whose
 * header checks were a quarter of the CPU of `GET /healthz`. Under @hono/node-server they are set
 * on the Node response before the handler runs (`setHeader`, which `writeHead` merges), so every
 * answer carries them, the error handler's and a thrown `HTTPException`'s own response included,
 * without any undici object. Elsewhere (`app.request()` in tests) they are set on the finished
 * response as before. Either way no handler sets one of these headers: these values are the only ones.
 */
export function securityHeaders(options: SecurityHeadersOptions): MiddlewareHandler {
  const headers = securityHeaderSet(options);
  return async function securityHeaders(c, next) {
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    if (outgoing && !outgoing.headersSent) {
      for (const [name, value] of headers) outgoing.setHeader(name, value);
      await next();
      return;
    }
    await next();
    for (const [name, value] of headers) c.res.headers.set(name, value);
  };
}
