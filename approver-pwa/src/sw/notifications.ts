/// <reference lib="webworker" />
import type { PushPayload } from '@countersign/shared';

/**
 * What a push message turns into on screen, and where a click on it leads. The push payload is
 * the server's `{kind, auth_req_id, summary}` (≤ 2 KB; the summary says who asks, the amount and
 * the payee, e.g. "Support agent: EUR 490.00 to ACME Ltd"); the app fetches the full display.
 * `kind` is `approval_request` (a new request) or `request_expired` (it ran out undecided).
 *
 * @see RFC 8030 (Web Push), Push API §11 (userVisibleOnly), Notifications API
 */

/** The title of every approval notification. */
export const NOTIFICATION_TITLE = 'Approval requested';
/** The title when a request expired before anyone decided. */
export const EXPIRED_TITLE = 'Request expired';
/** The body of an expiry without a summary. */
export const EXPIRED_BODY = 'Nothing will happen. The agent has to ask again.';
/** The body when the payload is missing or unreadable: there is still something to look at. */
export const FALLBACK_BODY = 'Open Countersign to see what is asked of you.';
/** The title when an administrator removed one of the user's devices (the payload's summary names it). */
export const DEVICE_REMOVED_TITLE = 'A device was removed';
/** Where a device-removed notification leads: the user's devices. */
export const DEVICES_URL = '/#/devices';
/** Where a notification without a request leads. */
export const INBOX_URL = '/#/';
/** The tag of a notification without a request. */
export const FALLBACK_TAG = 'countersign';

/** What a notification carries in `data`. */
export interface NotificationData {
  url: string;
}

/** The fragment URL of one request's screen (the app routes on the fragment, see `router.ts`). */
export function requestUrl(authReqId: string): string {
  return `/#/requests/${encodeURIComponent(authReqId)}`;
}

/** The kinds of push this worker knows; anything else is shown as a new request (it is safer to look). */
const EXPIRED_KIND = 'request_expired';
/** An operator removed one of the user's devices; `auth_req_id` then holds that device's id. */
const DEVICE_REMOVED_KIND = 'device_removed';

/** The payload, or `null` when it is missing, not JSON or not the expected shape. */
export function readPayload(data: { json(): unknown } | null | undefined): PushPayload | null {
  if (!data) return null;
  try {
    const value = data.json() as Partial<PushPayload> | null;
    if (value && typeof value.auth_req_id === 'string' && value.auth_req_id !== '') {
      return {
        kind: value.kind === EXPIRED_KIND || value.kind === DEVICE_REMOVED_KIND ? value.kind : 'approval_request',
        auth_req_id: value.auth_req_id,
        summary: typeof value.summary === 'string' ? value.summary : '',
      };
    }
  } catch {
    // Not JSON: still show the generic notification.
  }
  return null;
}

/**
 * The notification for a payload. One tag per request: a second push for the same request
 * replaces the first instead of stacking, so "expired" takes the place of "approval requested".
 * A new request keeps its notification until the person acts (`requireInteraction`): a request
 * nobody sees expires silently. An expiry replaces it quietly, since nothing can be done any more.
 */
export function notificationFor(payload: PushPayload | null): { title: string; options: NotificationOptions } {
  if (payload?.kind === DEVICE_REMOVED_KIND) {
    // Not a request: a notice, shown until seen (a removal the person did not ask for must not pass unnoticed).
    return {
      title: DEVICE_REMOVED_TITLE,
      options: { body: payload.summary, tag: `device:${payload.auth_req_id}`, requireInteraction: true, icon: '/icons/icon-192.png', lang: 'en', data: { url: DEVICES_URL } satisfies NotificationData },
    };
  }
  const expired = payload?.kind === EXPIRED_KIND;
  return {
    title: expired ? EXPIRED_TITLE : NOTIFICATION_TITLE,
    options: {
      body: payload?.summary || (expired ? EXPIRED_BODY : FALLBACK_BODY),
      tag: payload?.auth_req_id ?? FALLBACK_TAG,
      requireInteraction: !expired,
      silent: expired,
      icon: '/icons/icon-192.png',
      lang: 'en',
      data: { url: payload ? requestUrl(payload.auth_req_id) : INBOX_URL } satisfies NotificationData,
    },
  };
}

/**
 * The absolute URL a clicked notification opens: its `data.url` when that is a page of this app,
 * the inbox otherwise (whatever `data` holds, the worker only ever opens its own origin).
 */
export function clickTarget(data: unknown, origin: string): string {
  const url = (data as Partial<NotificationData> | null)?.url;
  const inbox = new URL(INBOX_URL, origin).href;
  if (typeof url !== 'string') return inbox;
  try {
    const target = new URL(url, origin);
    return target.origin === origin ? target.href : inbox;
  } catch {
    return inbox;
  }
}

/**
 * Shows `url` in the app: focuses an open window of the app and navigates it there, or opens a
 * new window. `focus()` and `openWindow()` need the user activation a real click grants; without
 * it (a test calling this directly) focusing fails quietly and showing the request still happens.
 */
export async function openAppWindow(clients: Clients, url: string): Promise<void> {
  // Only windows of the app itself (`/`): the operator console (`/console`) is in this worker's
  // scope too, and a notification must never navigate it away.
  const windows = (await clients.matchAll({ type: 'window', includeUncontrolled: true })).filter((candidate) => isAppWindow(candidate.url));
  const client = windows.find((candidate) => candidate.focused) ?? windows[0];
  if (!client) {
    await clients.openWindow(url);
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

/** Whether a window shows the app (`/` or `/index.html`, any fragment), not another page of the origin. */
export function isAppWindow(url: string): boolean {
  try {
    const { pathname } = new URL(url);
    return pathname === '/' || pathname === '/index.html';
  } catch {
    return false;
  }
}
