import './styles.css';
import { createApp } from './app.ts';
import { connectivity } from './net/connectivity.ts';
import { startRouter } from './router.ts';
import { mountOfflineBanner } from './ui/offline-banner.ts';

/**
 * The approver PWA: registers the service worker (offline shell, push and notification clicks),
 * shows the offline banner whenever the server can't be reached, then routes on the URL fragment.
 */
function main(): void {
  const root = document.querySelector<HTMLElement>('main');
  if (!root) throw new Error('index.html has no <main>');
  const offlineSlot = document.querySelector<HTMLElement>('[data-offline-slot]');
  if (offlineSlot) mountOfflineBanner(offlineSlot, connectivity);
  registerServiceWorker();
  startRouter(createApp(root));
}

function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  // The dev server has no built /sw.js; push needs `vite build`.
  if (import.meta.env.DEV) return;
  // `updateViaCache: 'none'`: update checks fetch /sw.js past the HTTP cache, so a release reaches phones at once.
  navigator.serviceWorker.register('/sw.js', { scope: '/', updateViaCache: 'none' }).catch((error: unknown) => {
    console.warn('Service worker not registered; notifications and the offline shell stay off:', error);
  });
  // A notification click on an open window asks it to show the request (see sw.ts).
  navigator.serviceWorker.addEventListener('message', (event: MessageEvent<unknown>) => {
    const data = event.data as { type?: unknown; url?: unknown } | null;
    if (data?.type !== 'navigate' || typeof data.url !== 'string') return;
    const url = new URL(data.url, location.href);
    if (url.origin === location.origin && url.pathname === '/') location.hash = url.hash;
  });
}

main();
