import type { MiddlewareHandler } from 'hono';
import { requestId } from 'hono/request-id';
import { performance } from 'node:perf_hooks';
import type { Logger, RequestLine } from '../runtime/index.ts';
import { answeredRoute } from './answered-route.ts';

declare module 'hono' {
  interface ContextVariableMap {
    /** The client an agent call authenticated as (set by client authentication), for the request's log line. */
    client_id: string;
  }
}

/** The header a request id comes in and goes out in. */
export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * One log line per request, `request`, with `request_id`, `method`, `route` (the pattern, see
 * {@link answeredRoute}), `status`, `duration_ms` and, on an agent call, `client_id`. The request id
 * is the caller's `X-Request-Id` when it is one (1 to 128 letters, digits, `_`, `-`, `=`; a proxy's
 * id, so one request is followed across both logs), else a new UUID; it is returned in the same
 * header. Nothing from the body, the query or the headers is logged.
 *
 * Built on hono's `requestId` middleware.
 */
export function requestLog(log: Logger): MiddlewareHandler[] {
  const identify = requestId({ headerName: REQUEST_ID_HEADER, limitLength: 128 });
  const logged: MiddlewareHandler = async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const line: RequestLine = {
        request_id: c.get('requestId'),
        method: c.req.method,
        route: answeredRoute(c),
        status: c.res.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        ...(c.get('client_id') ? { client_id: c.get('client_id') } : {}),
      };
      if (log.request) log.request(line);
      else log.info('request', { ...line });
    }
  };
  return [identify, logged];
}
