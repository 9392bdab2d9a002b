import './styles.css';
import { createApp } from './app.ts';
import { startRouter } from './router.ts';

/**
 * The approver PWA: registers the service worker (push and notification clicks), then routes on
 * the URL fragment.
 */
function main(): void {
  const root = document.querySelector<HTMLElement>('main');
  if (!root) throw new Error('index.html has no <main>');
  registerServiceWorker();
  startRouter(createApp(root));
}

function registerServiceWorker(): void {
  if (!('serviceWorker' in navigator)) return;
  // The dev server has no built /sw.js; push needs `vite build`.
  if (import.meta.env.DEV) return;
  navigator.serviceWorker.register('/sw.js', { scope: '/' }).catch((error: unknown) => {
    console.warn('Service worker not registered; notifications stay off:', error);
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
