import { Hono } from 'hono';
import type { Deps } from '../deps.ts';
import { buildOpenApiDocument } from './build-document.ts';

/**
 * `GET /openapi.json`: the OpenAPI 3.1 document, public and cacheable (it changes only with a
 * release). Built once, at its first call, so that a server nobody asks for it never pays for it.
 */
export function openApiRoute(deps: Pick<Deps, 'config'>): Hono {
  const app = new Hono();
  let document: string | undefined;
  app.get('/openapi.json', (c) => {
    // The cookie's name as devices/session.ts sets it: the __Host- prefix needs https.
    document ??= JSON.stringify(buildOpenApiDocument({ issuer: deps.config.publicUrl, sessionCookie: deps.config.publicUrl.startsWith('https:') ? '__Host-cs_device' : 'cs_device' }));
    return c.body(document, 200, { 'Content-Type': 'application/json', 'Cache-Control': 'public, max-age=300' });
  });
  return app;
}
