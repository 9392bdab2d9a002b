import { Hono, type MiddlewareHandler } from 'hono';
import type { Metrics } from './metrics.ts';

/**
 * `GET /metrics`: the Prometheus text exposition of {@link Metrics}, behind `guard` (the admin
 * token check, with its limit on wrong tokens): a scrape names routes and reason codes, which an
 * outsider has no business reading.
 *
 * @see Prometheus exposition formats, text format 0.0.4
 */
export function metricsRoute(metrics: Metrics, guard: MiddlewareHandler): Hono {
  const app = new Hono();
  app.use('*', guard);
  app.get('/', async (c) => c.body(await metrics.registry.metrics(), 200, { 'Content-Type': metrics.registry.contentType, 'Cache-Control': 'no-store' }));
  return app;
}
