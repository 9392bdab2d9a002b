import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { adminAuth, adminRoutes } from './admin/index.ts';
import { bcAuthorizeHandler, discoveryRoutes, tokenHandler } from './ciba/index.ts';
import { consoleRoutes, testRequestRoutes } from './console/index.ts';
import type { Deps } from './deps.ts';
import { deviceRoutes } from './devices/index.ts';
import { allowedMethods, contentLengthLimit, errorHandler, MAX_BODY_BYTES, notFound, requestDeadline, requestLog, securityHeaders } from './http/index.ts';
import { registerDeviceMandateRoutes, reportSpendOutcome, spendMandate } from './mandates/index.ts';
import { httpMetrics, metricsRoute } from './metrics/index.ts';
import { openApiRoute } from './openapi/index.ts';
import { redemptionRoutes } from './redemption/index.ts';

/** The approver PWA the server's build bundles (`server/dist/pwa/`, see `server/copy-assets.mjs`), so a deployed server carries it. */
const BUNDLED_PWA = fileURLToPath(new URL('./pwa/', import.meta.url));
/** Where the approver PWA is: bundled with a built server, else where `pnpm build` puts it in the workspace. */
export const PWA_DIST = existsSync(BUNDLED_PWA) ? BUNDLED_PWA : fileURLToPath(new URL('../../approver-pwa/dist/', import.meta.url));

/** Options of {@link createApp}. */
export interface AppOptions {
  /** The admin API's bearer token; without one the admin API is off. */
  adminToken?: string;
  /** A built PWA to serve at `/`; {@link PWA_DIST} by default, nothing when it is missing. */
  pwaRoot?: string | false;
  /**
   * True once the process is stopping (`main.ts`): `/readyz` answers 503 so a load balancer stops
   * sending, and every answer carries `Connection: close` so no connection is kept for a next request.
   */
  draining?: () => boolean;
}

/**
 * The Countersign HTTP application: the CIBA endpoints for agents, the redemption endpoints for
 * executors, the device API for the approver PWA, the admin API and the operator console, and the
 * PWA itself.
 */
export function createApp(deps: Deps, options: AppOptions = {}): Hono {
  const app = new Hono();
  app.onError(errorHandler(deps.log));
  app.notFound(notFound);
  // First, so they time the whole answer and see the status the error handler chose.
  app.use('*', ...requestLog(deps.log), httpMetrics(deps.metrics));
  // Set before the handler runs, so that @hono/node-server writes its prepared answer (security-headers.ts).
  app.use('*', securityHeaders({ https: deps.config.publicUrl.startsWith('https:') }));
  // A body announced as too large is refused on every route; one read is capped as it is read (read-body.ts).
  app.on(['POST', 'PUT', 'PATCH', 'DELETE'], '*', contentLengthLimit(MAX_BODY_BYTES));
  // Every store call of one request shares one deadline, the Redis command timeout (request-deadline.ts).
  if (deps.store.kind === 'redis') app.use('*', requestDeadline(deps.config.redisCommandTimeoutMs));

  const draining = options.draining ?? (() => false);
  app.use('*', async (c, next) => {
    await next();
    if (draining()) c.header('Connection', 'close');
  });

  app.get('/healthz', (c) => c.json({ status: 'ok' }));
  app.get('/readyz', async (c) => {
    if (draining()) return c.json({ error: 'temporarily_unavailable', error_description: 'The server is stopping.' }, 503, { 'Retry-After': '5' });
    try {
      await deps.store.get('readyz');
      return c.json({ status: 'ready', store: deps.store.kind });
    } catch {
      return c.json({ error: 'temporarily_unavailable', error_description: 'The store is not reachable.' }, 503, { 'Retry-After': '5' });
    }
  });

  // The agents' and executors' endpoints, on a Hono of their own: a wrong method on one of them
  // (`GET /bc-authorize`) is answered 405 with `Allow`, not 404 (method-not-allowed.ts).
  const agent = new Hono();
  agent.route('/', discoveryRoutes(deps));
  agent.post('/bc-authorize', bcAuthorizeHandler(deps));
  agent.post('/token', tokenHandler(deps));
  agent.route('/', redemptionRoutes(deps, { spendMandate, reportSpendOutcome }));
  app.use('*', allowedMethods(agent));
  app.route('/', agent);
  app.route('/', openApiRoute(deps));
  app.route('/api/device', deviceRoutes(deps, [registerDeviceMandateRoutes]));
  if (options.adminToken) {
    app.route('/api/admin/test-requests', testRequestRoutes(deps, options.adminToken));
    app.route('/api/admin', adminRoutes(deps, options.adminToken));
    app.route('/metrics', metricsRoute(deps.metrics, adminAuth(deps, options.adminToken)));
    // The operator console: a static page that asks for the admin token; off with the admin API.
    app.route('/console', consoleRoutes());
  }
  app.all('/api/*', notFound);

  const pwaRoot = options.pwaRoot ?? PWA_DIST;
  if (pwaRoot && existsSync(pwaRoot)) {
    // The service worker must never be cached by HTTP, or an update could take a day to reach phones.
    app.use('/sw.js', async (c, next) => {
      await next();
      c.header('Cache-Control', 'no-cache');
      c.header('Service-Worker-Allowed', '/');
    });
    app.use('/*', serveStatic({ root: pwaRoot }));
    app.get('/', serveStatic({ root: pwaRoot, path: 'index.html' }));
  }
  return app;
}
