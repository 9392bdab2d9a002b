import type { MiddlewareHandler } from 'hono';
import { enforceRate, type RateLimitDeps } from '../rate-limits/index.ts';
import type { DeviceSession, DeviceVariables } from './session.ts';

/**
 * The subject of a device session's limits: its tenant, user and device. A session belongs to one
 * device (it starts at that device's enrollment), so this is the session, named without its secret.
 */
export function sessionSubject(session: DeviceSession): string {
  return `${session.tenant}:${session.sub}:${session.device_id}`;
}

/**
 * Limits request views per device session (`RATE_LIMIT_DEVICE_VIEWS`): `GET /api/device/requests`
 * and `GET /api/device/requests/{id}` share one allowance, counted after the session is checked
 * and before the handler reads anything. A view of a pending request writes (an audit event, its
 * decision prompts), so without it one cookie could grow the store as fast as it could call.
 * @throws CountersignError 429 `too_many_requests` with `Retry-After`.
 */
export function limitViews(deps: RateLimitDeps): MiddlewareHandler<{ Variables: DeviceVariables }> {
  return async function deviceViews(c, next) {
    await enforceRate(deps, 'deviceViews', sessionSubject(c.get('session')), 'Too many request views from this device.');
    await next();
  };
}
