/// <reference lib="webworker" />
/**
 * The service worker, served at `/sw.js` with scope `/`.
 *
 * - `push`: always shows a notification, inside `waitUntil`, whatever the payload: browsers
 *   revoke push for workers that receive a push and show nothing (`userVisibleOnly`), and a
 *   request the person never sees is a request that silently expires.
 * - `notificationclick`: opens the request, in the open app window when there is one.
 *
 * Offline precaching of the app shell comes later (issue 5): add a `fetch` handler and cache
 * the build's assets in `install`; nothing here assumes the network.
 *
 * @see RFC 8030 (Web Push), Push API §11 (userVisibleOnly), Notifications API
 */
import type { PushPayload } from '@countersign/shared';

declare const self: ServiceWorkerGlobalScope;

const TITLE = 'Approval requested';
const FALLBACK_BODY = 'Open Countersign to see what is asked of you.';
const INBOX_URL = '/#/';

/** What a notification carries in `data`. */
interface NotificationData {
  url: string;
}

self.addEventListener('install', () => {
  // A new worker takes over at once: it holds no state an old page depends on.
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(self.clients.claim());
});

self.addEventListener('push', (event) => {
  const payload = readPayload(event.data);
  const options: NotificationOptions = {
    body: payload?.summary || FALLBACK_BODY,
    // One notification per request: a second push for the same request replaces the first.
    tag: payload?.auth_req_id ?? 'countersign',
    requireInteraction: true,
    icon: '/icons/icon-192.png',
    data: { url: payload ? requestUrl(payload.auth_req_id) : INBOX_URL } satisfies NotificationData,
  };
  event.waitUntil(self.registration.showNotification(TITLE, options));
});

self.addEventListener('notificationclick', (event) => {
  event.notification.close();
  const data = event.notification.data as Partial<NotificationData> | null;
  const url = new URL(typeof data?.url === 'string' ? data.url : INBOX_URL, self.location.origin);
  // Only ever open this app's own pages, whatever `data` holds.
  event.waitUntil(openWindow(url.origin === self.location.origin ? url.href : new URL(INBOX_URL, self.location.origin).href));
});

/** Focuses an open window of the app and shows `url` in it, or opens a new one. */
async function openWindow(url: string): Promise<void> {
  const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
  const client = windows.find((candidate) => candidate.focused) ?? windows[0];
  if (!client) {
    await self.clients.openWindow(url);
    return;
  }
  let focused: WindowClient = client;
  try {
    focused = await client.focus();
  } catch {
    // Focus needs the click's user activation; showing the request matters more.
  }
  try {
    // `navigate` works only on windows this worker controls; the page handles the message otherwise.
    if (!(await focused.navigate(url))) focused.postMessage({ type: 'navigate', url });
  } catch {
    focused.postMessage({ type: 'navigate', url });
  }
}

/** The payload, or `null` when it is missing, not JSON or not the expected shape. */
function readPayload(data: PushMessageData | null): PushPayload | null {
  if (!data) return null;
  try {
    const value = data.json() as Partial<PushPayload> | null;
    if (value && typeof value.auth_req_id === 'string' && value.auth_req_id !== '') {
      return {
        kind: 'approval_request',
        auth_req_id: value.auth_req_id,
        summary: typeof value.summary === 'string' ? value.summary : '',
      };
    }
  } catch {
    // Not JSON: still show the generic notification.
  }
  return null;
}

function requestUrl(authReqId: string): string {
  return `/#/requests/${encodeURIComponent(authReqId)}`;
}
