import { getSession, isApiError, type DeviceSession } from './api/index.ts';
import { renewPush } from './push/push-status.ts';

let current: Promise<DeviceSession | null> | undefined;
let pushRenewed = false;

/**
 * Set in this browser's storage once it has had a session. The session cookie is HttpOnly, so
 * the page cannot see it; without this mark the enrollment screen asks the server anyway, and a
 * browser that was never enrolled gets a 401, which the browser logs as an error in its console.
 */
const ENROLLED_MARK = 'countersign.enrolled';

/** Whether this browser has had a device session (so one may still be there). */
export function mayHaveSession(): boolean {
  try {
    return localStorage.getItem(ENROLLED_MARK) === '1';
  } catch {
    // Storage refused (some private modes): ask the server, as before.
    return true;
  }
}

function mark(enrolled: boolean): void {
  try {
    if (enrolled) localStorage.setItem(ENROLLED_MARK, '1');
    else localStorage.removeItem(ENROLLED_MARK);
  } catch {
    // Nothing to remember it in; mayHaveSession() then asks the server.
  }
}

/**
 * This device's session, fetched once per launch: `null` when this browser is not enrolled.
 * On the first session of a launch, the push subscription is renewed in the background.
 *
 * @throws {ApiError} for anything but `login_required` (network, server); the next call retries.
 */
export function loadSession(): Promise<DeviceSession | null> {
  current ??= getSession().then(
    (session) => {
      onSession(session);
      return session;
    },
    (error: unknown) => {
      if (isApiError(error, 'login_required')) {
        mark(false);
        return null;
      }
      current = undefined;
      throw error;
    },
  );
  return current;
}

/** Records the session the enrollment just created. */
export function setSession(session: DeviceSession): void {
  current = Promise.resolve(session);
  pushRenewed = false;
  onSession(session);
}

/** Forgets the session, e.g. after the server answered `login_required` mid-use. */
export function clearSession(): void {
  current = Promise.resolve(null);
  mark(false);
  showUser(null);
}

function onSession(session: DeviceSession): void {
  mark(true);
  showUser(session);
  if (!pushRenewed) {
    pushRenewed = true;
    void renewPush(session.vapid_public_key);
  }
}

function showUser(session: DeviceSession | null): void {
  const slot = document.querySelector<HTMLElement>('[data-testid="signed-in-as"]');
  if (slot) slot.textContent = session ? session.user.display_name || session.user.sub : '';
}
