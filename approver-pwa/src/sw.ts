/// <reference lib="webworker" />
/**
 * The service worker, served at `/sw.js` with scope `/`. It imports only `sw/…` modules (never
 * the page's), so the build emits it as one classic script.
 *
 * - `install`: precaches the app shell (the build's list, `sw/precache.ts`) into a cache named
 *   after the build's digest, and takes over at once;
 * - `activate`: deletes every other version's shell cache;
 * - `fetch`: the shell cache-first, the API never (so an offline call fails and the app says so);
 * - `push`: always shows a notification, inside `waitUntil`, whatever the payload: browsers
 *   revoke push for workers that receive a push and show nothing (`userVisibleOnly`), and a
 *   request the person never sees is a request that silently expires;
 * - `notificationclick`: opens the request, in the open app window when there is one;
 * - `pushsubscriptionchange`: subscribes again and sends the subscription to the server.
 *
 * @see Service Workers §4 (lifecycle), RFC 8030 (Web Push), Push API §11, Notifications API
 */
import { clickTarget, notificationFor, openAppWindow, readPayload } from './sw/notifications.ts';
import { fetchStrategy, readPrecacheManifest, SHELL_DOCUMENT, shellCacheName, staleCacheNames } from './sw/precache.ts';
import { renewSubscription, type RenewalResult, type SubscriptionChange } from './sw/push-renewal.ts';

declare const self: ServiceWorkerGlobalScope & { __countersign?: WorkerHooks };

const manifest = readPrecacheManifest();
const cacheName = shellCacheName(manifest.version);

self.addEventListener('install', (event) => {
  event.waitUntil(precache());
  // A new worker takes over at once: it holds no state an old page depends on.
  void self.skipWaiting();
});

self.addEventListener('activate', (event) => {
  event.waitUntil(
    (async () => {
      const stale = staleCacheNames(await caches.keys(), cacheName);
      await Promise.all(stale.map((name) => caches.delete(name)));
      await self.clients.claim();
    })(),
  );
});

self.addEventListener('fetch', (event) => {
  const strategy = fetchStrategy(event.request, self.location.origin, manifest);
  if (strategy === 'network') return;
  event.respondWith(cacheFirst(event.request, strategy === 'shell' ? SHELL_DOCUMENT : event.request));
});

self.addEventListener('push', (event) => {
  const { title, options } = notificationFor(readPayload(event.data));
  event.waitUntil(self.registration.showNotification(title, options));
});

self.addEventListener('notificationclick', (event) => {
  event.waitUntil(notificationClicked(event.notification));
});

self.addEventListener('pushsubscriptionchange', (event) => {
  event.waitUntil(pushSubscriptionChanged(event as unknown as SubscriptionChange));
});

/**
 * Fetches every shell file, bypassing the HTTP cache so a new version never stores an old file,
 * into this version's cache. One missing file fails the install, and the previous version keeps
 * serving: better an old shell than a broken one.
 */
async function precache(): Promise<void> {
  if (manifest.urls.length === 0) return;
  const cache = await caches.open(cacheName);
  await cache.addAll(manifest.urls.map((url) => new Request(url, { cache: 'reload' })));
}

/** Answers from this version's cache, or the network when the file is not there. */
async function cacheFirst(request: Request, cached: Request | string): Promise<Response> {
  const cache = await caches.open(cacheName);
  return (await cache.match(cached)) ?? fetch(request);
}

async function notificationClicked(notification: Notification): Promise<void> {
  notification.close();
  await openAppWindow(self.clients, clickTarget(notification.data, self.location.origin));
}

function pushSubscriptionChanged(change: SubscriptionChange): Promise<RenewalResult> {
  return renewSubscription(change, { pushManager: self.registration.pushManager, fetch: (input, init) => fetch(input, init) });
}

/**
 * The handlers behind the events, callable from inside this worker. Browser tests use them where
 * a headless browser cannot raise the event itself: nothing clicks a notification there, and
 * `pushsubscriptionchange` cannot be triggered. Only code running in this worker (DevTools, a
 * test's `worker.evaluate`) can reach them; they do nothing the events would not do.
 */
interface WorkerHooks {
  version: string;
  notificationClicked(notification: Notification): Promise<void>;
  pushSubscriptionChanged(change: SubscriptionChange): Promise<RenewalResult>;
}

self.__countersign = { version: manifest.version, notificationClicked, pushSubscriptionChanged };
