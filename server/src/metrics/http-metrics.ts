import type { MiddlewareHandler } from 'hono';
import { performance } from 'node:perf_hooks';
import { answeredRoute } from '../http/index.ts';
import type { Metrics } from './metrics.ts';

/**
 * Counts and times every request by method, route pattern and status
 * (`countersign_http_requests_total`, `countersign_http_request_duration_seconds`). The route is
 * the pattern that answered (`/api/device/requests/:auth_req_id`), never the path itself, so ids
 * do not become label values; a request no route matched is `unmatched`.
 */
export function httpMetrics(metrics: Metrics): MiddlewareHandler {
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const labels = { method: c.req.method, route: answeredRoute(c), status: String(c.res.status) };
      metrics.httpRequests.inc(labels);
      metrics.httpDuration.observe(labels, (performance.now() - started) / 1000);
    }
  };
}
