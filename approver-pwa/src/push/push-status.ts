import type { PushSubscriptionJSON } from '@countersign/shared';
import { putPushSubscription } from '../api/index.ts';

/**
 * Where push notifications stand on this device:
 * - `unsupported`: no `Notification` or `PushManager` here (e.g. iOS Safari outside the Home Screen);
 * - `needs_permission`: the person has not been asked yet; needs a tap on "Turn on notifications";
 * - `working`: asking or subscribing now;
 * - `on`: subscribed, and the server has the subscription;
 * - `denied`: the person or the browser said no;
 * - `failed`: subscribing failed (headless browsers, no push service reachable).
 */
export type PushStatus = 'unsupported' | 'needs_permission' | 'working' | 'on' | 'denied' | 'failed';

let status: PushStatus = pushSupported() ? 'needs_permission' : 'unsupported';
const listeners = new Set<(status: PushStatus) => void>();

/** True where this browser offers notifications and push at all. */
export function pushSupported(): boolean {
  return typeof Notification !== 'undefined' && typeof PushManager !== 'undefined' && 'serviceWorker' in navigator;
}

/** The current status. */
export function getPushStatus(): PushStatus {
  return status;
}

/** Calls `listener` on every change; returns the unsubscribe. */
export function onPushStatus(listener: (status: PushStatus) => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function setStatus(next: PushStatus): void {
  status = next;
  for (const listener of [...listeners]) listener(next);
}

/**
 * Renews the push subscription on launch, without asking: only where permission was already
 * granted (subscriptions can be dropped silently by the platform, so every launch sends it again).
 */
export async function renewPush(vapidPublicKey: string): Promise<void> {
  if (!pushSupported()) return setStatus('unsupported');
  if (Notification.permission === 'denied') return setStatus('denied');
  if (Notification.permission !== 'granted') return setStatus('needs_permission');
  await subscribe(vapidPublicKey);
}

/**
 * Asks for notification permission and subscribes. Call it straight from a click handler: browsers
 * only show the permission prompt after a user gesture.
 */
export async function enablePush(vapidPublicKey: string): Promise<void> {
  if (!pushSupported()) return setStatus('unsupported');
  setStatus('working');
  let permission: NotificationPermission;
  try {
    permission = await Notification.requestPermission();
  } catch {
    return setStatus('failed');
  }
  if (permission !== 'granted') return setStatus(permission === 'denied' ? 'denied' : 'needs_permission');
  await subscribe(vapidPublicKey);
}

async function subscribe(vapidPublicKey: string): Promise<void> {
  setStatus('working');
  try {
    // `ready` never settles without a service worker, and `subscribe` can hang where no push
    // service answers (headless Chromium with a persistent profile): bound both.
    const registration = await withTimeout(navigator.serviceWorker.ready, 10_000);
    const key = base64UrlToBytes(vapidPublicKey);
    let subscription = await registration.pushManager.getSubscription();
    if (subscription && !sameKey(subscription.options.applicationServerKey, key)) {
      // The server's VAPID key changed: the old subscription can no longer be used.
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await withTimeout(registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key }), 20_000);
    await putPushSubscription(subscription.toJSON() as PushSubscriptionJSON);
    setStatus('on');
  } catch (error) {
    console.info('Push notifications are off:', error);
    setStatus('failed');
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms`)), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

function base64UrlToBytes(text: string): Uint8Array<ArrayBuffer> {
  const base64 = text
    .replace(/-/g, '+')
    .replace(/_/g, '/')
    .padEnd(Math.ceil(text.length / 4) * 4, '=');
  const binary = atob(base64);
  const bytes = new Uint8Array(new ArrayBuffer(binary.length));
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

function sameKey(current: ArrayBuffer | null, wanted: Uint8Array): boolean {
  if (!current) return false;
  const bytes = new Uint8Array(current);
  return bytes.length === wanted.length && bytes.every((byte, i) => byte === wanted[i]);
}
