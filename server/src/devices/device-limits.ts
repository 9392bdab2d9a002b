import { CountersignError } from '@countersign/shared';
import type { Context, MiddlewareHandler } from 'hono';
import type { Config } from '../config/index.ts';
import { sourceAddress } from '../http/index.ts';
import { enforceRate, type RateLimitDeps } from '../rate-limits/index.ts';
import type { DeviceSession, DeviceVariables } from './session.ts';

/**
 * The subject of a device session's limits: its tenant, user and device. A session belongs to one
 * device (it starts at that device's enrollment), so this is the session, named without its secret.
 * A user's allowance is at most `MAX_DEVICES_PER_USER` times a device's (see `device-cap.ts`); kept
 * per device, one device (a stolen cookie, a runaway tab) cannot use up the user's other devices'.
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

/**
 * Limits the calls behind a device session that change state (`RATE_LIMIT_DEVICE_CHANGES`): every
 * method but `GET` and `HEAD` (a decision, "this wasn't me", an add-device prompt and link, a
 * rename, a removal, a push subscription) shares one allowance, counted after the session is
 * checked and before the body is read. A refused decision is audited, and an add-device prompt
 * stores a challenge, so without it one cookie filled the audit trail with a refusal per call
 * (kept for `AUDIT_RETENTION_DAYS`). Over it nothing is read, stored or audited; only the counter
 * is written, by the calls it lets through.
 *
 * 30 a minute by default: a person decides a handful of requests a minute, and adding a device is
 * two calls; a burst of 30, then one every 2 s, never stops a person and bounds a script.
 * @throws CountersignError 429 `too_many_requests` with `Retry-After`.
 */
export function limitChanges(deps: RateLimitDeps): MiddlewareHandler<{ Variables: DeviceVariables }> {
  return async function deviceChanges(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') {
      await enforceRate(deps, 'deviceChanges', sessionSubject(c.get('session')), 'Too many changes from this device.');
    }
    await next();
  };
}

/**
 * Runs an unauthenticated enrollment call (`/enroll/options`, `/enroll/verify`) and counts its
 * `invalid_enrollment_code` against the source address (`RATE_LIMIT_ENROLLMENT_FAILURES`, see
 * `http/source-address.ts`), as failed client authentications are: past the limit a wrong code
 * answers 429 instead of 400. A good code is never counted nor refused: codes are 192 random bits,
 * so there is nothing to guess, and a person enrolling behind an address a scanner shares must
 * not be locked out by it. A wrong code writes nothing but the counter.
 * @throws CountersignError what `run` throws; 429 `too_many_requests` with `Retry-After` instead of
 *   `invalid_enrollment_code` once the address is over its limit.
 */
export async function countEnrollmentFailures<T>(c: Context, deps: RateLimitDeps & { config: Pick<Config, 'trustedProxies'> }, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof CountersignError && error.code === 'invalid_enrollment_code') {
      await enforceRate(deps, 'enrollmentFailures', sourceAddress(c, deps.config.trustedProxies), 'Too many wrong enrollment codes from this address.');
    }
    throw error;
  }
}
