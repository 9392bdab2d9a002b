import type { Connectivity, ConnectivityTracker } from '../net/connectivity.ts';
import { h } from './dom.ts';

/** What the banner says: plainly what is wrong and what still works (nothing can be signed). */
export const OFFLINE_MESSAGE = "You're offline. Countersign can't show or sign requests until the connection is back.";

/**
 * Shows the offline banner in `slot` (a `role="status"` element of the app shell, so screen
 * readers announce it) whenever the tracker says `offline`, and removes it when the server is
 * reachable again.
 *
 * @returns a function that stops following the tracker.
 */
export function mountOfflineBanner(slot: HTMLElement, tracker: ConnectivityTracker): () => void {
  const render = (state: Connectivity) => {
    slot.replaceChildren(...(state === 'offline' ? [h('p', { class: 'offline-banner', testid: 'offline-banner' }, h('span', { class: 'offline-dot', attrs: { 'aria-hidden': 'true' } }), OFFLINE_MESSAGE)] : []));
    document.documentElement.dataset.connectivity = state;
  };
  render(tracker.current());
  return tracker.subscribe(render);
}
