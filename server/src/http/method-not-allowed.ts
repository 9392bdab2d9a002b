import type { Context, Hono, MiddlewareHandler } from 'hono';
import { methodNotAllowed } from 'hono/method-not-allowed';
import { oauthDescription } from './errors.ts';

/**
 * 405 for a method `routes` does not serve on a path it does serve (`GET /bc-authorize`), with the
 * `Allow` header RFC 9110 §15.5.6 requires and an OAuth body `invalid_request` (RFC 6749 §5.2), so a
 * newcomer reads "use POST" instead of a 404 that suggests a wrong URL. hono's `methodNotAllowed`
 * does the matching; it only acts on a 404 that no handler raised, so a `not_found` of an unknown
 * id (`GET /requests/{id}`) stays a 404.
 *
 * `routes` must be the Hono the paths are registered on (it is read once, on the first 404).
 */
export function allowedMethods(routes: Hono): MiddlewareHandler {
  return methodNotAllowed({
    app: routes,
    onMethodNotAllowed: (c: Context, methods: string[]) => {
      const allow = methods.join(', ');
      const served = methods.filter((method) => method !== 'HEAD').join(' or ');
      return c.json({ error: 'invalid_request', error_description: oauthDescription(`${c.req.method} is not allowed here; this endpoint takes ${served}.`) }, 405, {
        Allow: allow,
        'Cache-Control': 'no-store',
      });
    },
  });
}
