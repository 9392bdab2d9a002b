import { CountersignError } from '@countersign/shared';
import type { Context, MiddlewareHandler } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import { createHash } from 'node:crypto';
import type { Deps } from '../deps.ts';
import { keys } from '../store/index.ts';
import { findUser, type UserRecord } from '../users/index.ts';
import { hasDevice } from './device-record.ts';

/** A device session: which user's which device is calling. */
export interface DeviceSession {
  tenant: string;
  sub: string;
  device_id: string;
}

/** What the device API's handlers find in the context once {@link requireSession} has passed. */
export interface DeviceVariables {
  session: DeviceSession;
  /** The session's user, read on this call; null when the user no longer exists. */
  user: UserRecord | null;
}

/** Device sessions last 30 days from enrollment; the device re-enrolls after that. */
const SESSION_SECONDS = 30 * 86_400;

function cookieName(deps: Pick<Deps, 'config'>): string {
  // The __Host- prefix (RFC 6265bis §4.1.3.2) pins the cookie to this origin, but needs Secure, which needs https.
  return deps.config.publicUrl.startsWith('https:') ? '__Host-cs_device' : 'cs_device';
}

/** Sessions are stored under a hash of their id, so a copy of the store holds no live session. */
function sessionKey(sessionId: string): string {
  return keys.session(createHash('sha256').update(sessionId).digest('base64url'));
}

/** Starts a session for a device and sets it as an HttpOnly, SameSite=Strict cookie. */
export async function startSession(c: Context, deps: Pick<Deps, 'config' | 'store' | 'ids'>, session: DeviceSession): Promise<void> {
  const sessionId = deps.ids(32);
  await deps.store.set(sessionKey(sessionId), JSON.stringify(session), { ttlSeconds: SESSION_SECONDS });
  setCookie(c, cookieName(deps), sessionId, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: deps.config.publicUrl.startsWith('https:'),
    path: '/',
    maxAge: SESSION_SECONDS,
  });
}

/** Ends the caller's session, if any. */
export async function endSession(c: Context, deps: Pick<Deps, 'config' | 'store'>): Promise<void> {
  const sessionId = getCookie(c, cookieName(deps));
  if (sessionId) await deps.store.delete(sessionKey(sessionId));
  deleteCookie(c, cookieName(deps), { path: '/' });
}

/**
 * Requires a device session whose device is still on its user's account; puts it in
 * `c.get('session')`, and the user's record as it stands now (null when the user is gone) in
 * `c.get('user')`: read beside the device check, in the same round trip, for every call, so a
 * role an operator removes stops working at once. Sessions are stored by a hash of their id with
 * no index by device, so removing a device cannot find its sessions: this check is what ends
 * them. A session of a removed device is deleted on its next call.
 * @throws CountersignError `login_required` (401) without a valid session.
 */
export function requireSession(deps: Pick<Deps, 'config' | 'store'>): MiddlewareHandler<{ Variables: DeviceVariables }> {
  return async function deviceSession(c, next) {
    const sessionId = getCookie(c, cookieName(deps));
    const key = sessionId && /^[A-Za-z0-9_-]{20,100}$/.test(sessionId) ? sessionKey(sessionId) : null;
    const json = key ? await deps.store.get(key) : null;
    if (!key || !json) throw new CountersignError('login_required', 'This device is not enrolled, or its session has ended.');
    const session = JSON.parse(json) as DeviceSession;
    const [present, user] = await Promise.all([hasDevice(deps.store, session.tenant, session.sub, session.device_id), findUser(deps.store, session.tenant, session.sub)]);
    if (!present) {
      await deps.store.delete(key);
      throw new CountersignError('login_required', 'This device has been removed from your account.');
    }
    c.set('session', session);
    c.set('user', user);
    await next();
  };
}

/**
 * Refuses a state-changing device call whose `Origin` is not `PUBLIC_URL` (CSRF): the session
 * cookie is SameSite=Strict already; this is the second lock.
 * @throws CountersignError `invalid_origin` (403).
 */
export function requireSameOrigin(deps: Pick<Deps, 'config'>): MiddlewareHandler {
  return async function sameOrigin(c, next) {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD' && c.req.header('origin') !== deps.config.publicUrl) {
      throw new CountersignError('invalid_origin', 'This call must come from the approver app.');
    }
    await next();
  };
}
