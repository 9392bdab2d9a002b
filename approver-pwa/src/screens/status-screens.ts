import { isApiError } from '../api/index.ts';
import { connectivity, type ConnectivityTracker } from '../net/connectivity.ts';
import { focusHeading, h, setTitle } from '../ui/dom.ts';
import { errorMessage } from './messages.ts';
import type { Dispose } from './screen.ts';

/**
 * Shown when this browser has no device session: the only way in is an enrollment link. After
 * this device was removed while the app was open (`removedBy`), it says so first, so being signed
 * out does not look like a fault.
 */
export function showNotEnrolled(root: HTMLElement, removedBy?: 'operator' | 'person'): void {
  setTitle(removedBy ? 'Device removed' : 'Not enrolled');
  root.replaceChildren(
    h(
      'section',
      { class: 'screen', testid: 'not-enrolled', attrs: { 'data-removed-by': removedBy } },
      h('h1', {}, removedBy ? 'This device was removed' : 'This device is not enrolled'),
      removedBy
        ? h('p', { testid: 'device-removed-here' }, removedBy === 'operator' ? 'An administrator removed this device from your account, so it can no longer approve anything. If this is unexpected, contact them.' : 'This device was removed from your account on one of your devices, so it can no longer approve anything.')
        : null,
      h('p', {}, removedBy ? 'To approve requests on this device again, open a new enrollment link here, in this browser.' : 'To approve requests on this device, open the enrollment link you were given, here, in this browser.'),
      h('p', { class: 'muted' }, 'Links work once and expire after a short while. If yours has, ask whoever runs Countersign for you for a new one.'),
    ),
  );
  focusHeading(root);
}

/** Shown for an unknown fragment. */
export function showNotFound(root: HTMLElement): void {
  setTitle('Not found');
  root.replaceChildren(h('section', { class: 'screen', testid: 'not-found' }, h('h1', {}, 'Nothing here'), h('p', {}, 'This link does not lead to anything in Countersign.'), h('p', {}, h('a', { attrs: { href: '#/' } }, 'Go to your requests'))));
  focusHeading(root);
}

/** How often the offline screen tries again by itself, in milliseconds. */
export const OFFLINE_RETRY_MS = 5000;

/**
 * Shown when the session could not be loaded. Offline (the server was not reached) it says so and
 * tries again by itself: when the browser says it is back online, and every
 * {@link OFFLINE_RETRY_MS} anyway, since that event does not come when only the server was down
 * (or, in some browsers, after a page loaded offline). `retry` also runs on request.
 *
 * @returns a function that stops trying.
 */
export function showLoadError(root: HTMLElement, error: unknown, retry: () => void, tracker: ConnectivityTracker = connectivity): Dispose {
  const offline = isApiError(error, 'network_error');
  // Still offline after a retry: leave the screen (and the focus) as they are, so a screen reader
  // does not announce it again every few seconds.
  const shown = root.querySelector('[data-testid="load-error"]');
  if (offline && shown?.hasAttribute('data-offline')) return keepTrying(retry, tracker);
  setTitle(offline ? 'Offline' : "Can't load");
  root.replaceChildren(
    h(
      'section',
      { class: 'screen', testid: 'load-error', attrs: { 'data-offline': offline } },
      h('h1', {}, offline ? "You're offline" : "Can't load Countersign"),
      offline ? h('p', {}, "Countersign can't reach its server, so it can't show your requests or let you approve anything. It tries again as soon as you're back online.") : h('p', { attrs: { role: 'alert' } }, errorMessage(error)),
      h('button', { class: 'btn btn-secondary', testid: 'retry', attrs: { type: 'button' }, on: { click: retry } }, 'Try again'),
    ),
  );
  focusHeading(root);
  return offline ? keepTrying(retry, tracker) : () => undefined;
}

/** Calls `retry` when the connection is back, and every {@link OFFLINE_RETRY_MS}; returns the stop. */
function keepTrying(retry: () => void, tracker: ConnectivityTracker): Dispose {
  const unsubscribe = tracker.subscribe((state) => state === 'online' && retry());
  const timer = setInterval(retry, OFFLINE_RETRY_MS);
  return () => {
    unsubscribe();
    clearInterval(timer);
  };
}
