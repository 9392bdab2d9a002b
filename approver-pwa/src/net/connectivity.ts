/**
 * Whether the app can reach the server, as far as it knows. Two sources, either one enough to say
 * "offline": the browser's own `navigator.onLine` (and its `online`/`offline` events), and the
 * last API call, which is the only way to notice a network that is "up" but reaches nothing
 * (captive portals, a dead Wi-Fi, a server that is down). Any API answer, even an error status,
 * means the server was reached.
 */
export type Connectivity = 'online' | 'offline';

/** What {@link createConnectivity} watches; the browser's `navigator` and `window` by default. */
export interface ConnectivityOptions {
  navigator?: Pick<Navigator, 'onLine'>;
  events?: Pick<EventTarget, 'addEventListener'>;
}

/** The app's view of the connection. */
export interface ConnectivityTracker {
  current(): Connectivity;
  /** An API call failed before the server answered. */
  reportUnreachable(): void;
  /** The server answered an API call. */
  reportReached(): void;
  /** Calls `listener` on every change; returns the unsubscribe. */
  subscribe(listener: (state: Connectivity) => void): () => void;
}

/** Tracks connectivity from the browser's events and the API calls' fate. */
export function createConnectivity(options: ConnectivityOptions = {}): ConnectivityTracker {
  const nav = options.navigator ?? (globalThis.navigator as Navigator | undefined);
  const events = options.events ?? (typeof globalThis.addEventListener === 'function' ? globalThis : undefined);
  const listeners = new Set<(state: Connectivity) => void>();
  let unreachable = false;
  let browserOnline = nav?.onLine ?? true;
  let last: Connectivity = compute();

  function compute(): Connectivity {
    return browserOnline && !unreachable ? 'online' : 'offline';
  }
  function update(): void {
    const next = compute();
    if (next === last) return;
    last = next;
    for (const listener of [...listeners]) listener(next);
  }

  events?.addEventListener('online', () => {
    browserOnline = true;
    // The browser thinks the network is back; the next API call says whether the server is.
    unreachable = false;
    update();
  });
  events?.addEventListener('offline', () => {
    browserOnline = false;
    update();
  });

  return {
    current: () => last,
    reportUnreachable() {
      unreachable = true;
      update();
    },
    reportReached() {
      unreachable = false;
      browserOnline = true;
      update();
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The app's one tracker. */
export const connectivity = createConnectivity();
