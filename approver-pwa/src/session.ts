import { getSession, isApiError, type DeviceSession } from './api/index.ts';
import { renewPush } from './push/push-status.ts';

let current: Promise<DeviceSession | null> | undefined;
let pushRenewed = false;

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
      if (isApiError(error, 'login_required')) return null;
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
  showUser(null);
}

function onSession(session: DeviceSession): void {
  showUser(session);
  if (!pushRenewed) {
    pushRenewed = true;
    void renewPush(session.vapid_public_key);
  }
}

function showUser(session: DeviceSession | null): void {
  const slot = document.querySelector<HTMLElement>('[data-testid="signed-in-as"]');
  if (slot) slot.textContent = session ? (session.user.display_name || session.user.sub) : '';
}
