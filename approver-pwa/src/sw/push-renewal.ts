/// <reference lib="webworker" />

/**
 * Renews the push subscription from the service worker when the browser replaces or drops it
 * (`pushsubscriptionchange`): some platforms expire or rotate subscriptions silently, and a
 * device that stopped receiving pushes looks exactly like one with nothing to approve.
 *
 * The worker calls the device API itself, as the page would: it is same-origin, so the
 * SameSite=Strict session cookie goes along (`credentials: 'same-origin'`), and its `PUT` carries
 * `Origin: <the app's origin>`, which is `PUBLIC_URL`, so the server's CSRF check passes.
 *
 * @see Push API §11.4 (`pushsubscriptionchange`), RFC 8030 §7.3, RFC 8292 §4 (`applicationServerKey`)
 */

/** The device API paths the worker uses (the same the page uses, see `api/device-api.ts`). */
export const PUSH_SUBSCRIPTION_PATH = '/api/device/push-subscription';
export const SESSION_PATH = '/api/device/me';

/** What {@link renewSubscription} reads of a `PushSubscriptionChangeEvent` (Chromium has no such class). */
export interface SubscriptionChange {
  oldSubscription?: Pick<PushSubscription, 'options'> | null;
  newSubscription?: Pick<PushSubscription, 'toJSON'> | null;
}

/** What became of a renewal. */
export type RenewalResult =
  | { status: 'renewed'; endpoint: string }
  /** The server does not know this browser (not enrolled, or the session ended): nothing to renew. */
  | { status: 'not_enrolled' }
  | { status: 'failed'; reason: string };

/** What {@link renewSubscription} needs: passed in, so tests can give fakes. */
export interface RenewalDeps {
  pushManager: Pick<PushManager, 'subscribe'>;
  fetch: typeof fetch;
}

/**
 * Sends the new subscription to the server: the one the event brings (Firefox), or a fresh one
 * made with the server's current VAPID key (read from `/api/device/me`, so a rotated key is picked
 * up), falling back to the old subscription's `applicationServerKey` when the server cannot say.
 * Never throws: the result says what happened.
 */
export async function renewSubscription(change: SubscriptionChange, deps: RenewalDeps): Promise<RenewalResult> {
  try {
    let subscription = change.newSubscription ?? null;
    if (!subscription) {
      const key = (await currentServerKey(deps.fetch)) ?? change.oldSubscription?.options.applicationServerKey ?? null;
      if (key === 'not_enrolled') return { status: 'not_enrolled' };
      if (!key) return { status: 'failed', reason: 'no_application_server_key' };
      subscription = await deps.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    }
    const json = subscription.toJSON();
    const response = await deps.fetch(PUSH_SUBSCRIPTION_PATH, {
      method: 'PUT',
      credentials: 'same-origin',
      cache: 'no-store',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify(json),
    });
    if (response.status === 401) return { status: 'not_enrolled' };
    if (!response.ok) return { status: 'failed', reason: `http_${response.status}` };
    return { status: 'renewed', endpoint: json.endpoint ?? '' };
  } catch (error) {
    return { status: 'failed', reason: error instanceof Error ? error.name : 'error' };
  }
}

/** The server's VAPID public key as bytes, `'not_enrolled'`, or null when it could not be read. */
async function currentServerKey(fetcher: typeof fetch): Promise<Uint8Array<ArrayBuffer> | 'not_enrolled' | null> {
  try {
    const response = await fetcher(SESSION_PATH, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } });
    if (response.status === 401) return 'not_enrolled';
    if (!response.ok) return null;
    const body = (await response.json()) as { vapid_public_key?: unknown };
    return typeof body.vapid_public_key === 'string' ? base64UrlToBytes(body.vapid_public_key) : null;
  } catch {
    return null;
  }
}

/** Decodes base64url (RFC 4648 §5) without padding. */
export function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
