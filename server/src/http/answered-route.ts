import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';

/**
 * The route pattern of a request (`/api/device/requests/:auth_req_id`), read once the handlers have
 * run: the pattern of the handler that answered (hono's route index then points at it), or, when a
 * middleware answered first (a missing session, a body too large), the first route the path
 * matched. Only catch-alls matched (the PWA's static files, the API's not-found): `unmatched`. A
 * pattern, never the path: ids in logs and metric labels would be a privacy leak and an unbounded
 * label set.
 */
export function answeredRoute(c: Context): string {
  const routes = matchedRoutes(c);
  const answered = routes[c.req.routeIndex]?.path;
  if (answered && !answered.endsWith('*')) return answered;
  return routes.find((route) => !route.path.endsWith('*'))?.path ?? 'unmatched';
}
