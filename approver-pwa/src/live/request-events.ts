import type { DeviceRemovedEvent, RequestState } from '@countersign/shared';

/** The data of a server-sent `request` event: something changed for one of the user's requests. */
export interface RequestEvent {
  auth_req_id: string;
  state: RequestState;
}

/**
 * A listener gets the event, or `null` for "anything may have changed" (a poll tick, the page
 * coming back into view, the stream reconnecting after a gap): refetch what is on screen.
 */
export type RequestListener = (event: RequestEvent | null) => void;

/** A listener of the stream's `device` events: one of the user's devices was removed. */
export type DeviceListener = (event: DeviceRemovedEvent) => void;

/** Options for {@link createRequestEvents}. */
export interface RequestEventsOptions {
  /** The server-sent events URL. */
  url: string;
  /** Polling period while the stream is down, in milliseconds; 5000 by default. */
  pollMs?: number;
  /** How long to keep polling before opening a closed stream again, in milliseconds; 30000 by default. */
  reopenMs?: number;
}

/** Live updates for the user's requests and devices. */
export interface RequestEvents {
  /** Starts listening (the stream opens with the first listener); returns the unsubscribe. */
  subscribe(listener: RequestListener): () => void;
  /**
   * Listens to device removals, as they come on the stream (polling has none: a removed device
   * then learns of it from its next call's `login_required`); opens the stream too.
   */
  onDevice(listener: DeviceListener): () => void;
}

/**
 * Live updates over server-sent events, falling back to polling every 5 s while the stream is
 * down, and a catch-up whenever the page becomes visible again. The stream is open only while a
 * screen listens, so the enrollment screen never opens a stream it may not read.
 */
export function createRequestEvents({ url, pollMs = 5000, reopenMs = 30_000 }: RequestEventsOptions): RequestEvents {
  const listeners = new Set<RequestListener>();
  const deviceListeners = new Set<DeviceListener>();
  const listening = () => listeners.size + deviceListeners.size;
  let source: EventSource | undefined;
  let poll: ReturnType<typeof setInterval> | undefined;
  let reopen: ReturnType<typeof setTimeout> | undefined;
  let idle: ReturnType<typeof setTimeout> | undefined;

  const emit = (event: RequestEvent | null) => {
    for (const listener of [...listeners]) listener(event);
  };
  const startPolling = () => {
    poll ??= setInterval(() => emit(null), pollMs);
  };
  const stopPolling = () => {
    clearInterval(poll);
    poll = undefined;
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') emit(null);
  };

  const open = () => {
    clearTimeout(reopen);
    reopen = undefined;
    if (typeof EventSource === 'undefined') {
      startPolling();
      return;
    }
    const stream = new EventSource(url);
    source = stream;
    stream.addEventListener('open', () => {
      stopPolling();
      emit(null); // whatever happened while the stream was down
    });
    stream.addEventListener('request', (message) => {
      emit(parseEvent(message.data));
    });
    stream.addEventListener('device', (message) => {
      const event = parseDeviceEvent(message.data);
      if (event) for (const listener of [...deviceListeners]) listener(event);
    });
    stream.addEventListener('error', () => {
      startPolling();
      // EventSource retries by itself unless the server refused the stream (readyState CLOSED).
      if (stream.readyState === EventSource.CLOSED && source === stream) {
        source = undefined;
        reopen = setTimeout(open, reopenMs);
      }
    });
  };

  const close = () => {
    source?.close();
    source = undefined;
    stopPolling();
    clearTimeout(reopen);
    reopen = undefined;
    document.removeEventListener('visibilitychange', onVisible);
    removeEventListener('online', onVisible);
  };

  /** Adds a listener to `set`; the stream opens with the first listener of either kind. */
  function listen<T>(set: Set<T>, listener: T): () => void {
    set.add(listener);
    clearTimeout(idle);
    idle = undefined;
    if (listening() === 1 && !source && !poll && !reopen) {
      open();
      document.addEventListener('visibilitychange', onVisible);
      addEventListener('online', onVisible);
    }
    return () => {
      // Closed a moment later, so going from the inbox to a request keeps the same stream.
      if (set.delete(listener) && listening() === 0) idle = setTimeout(close, 1000);
    };
  }

  return {
    subscribe: (listener) => listen(listeners, listener),
    onDevice: (listener) => listen(deviceListeners, listener),
  };
}

function parseEvent(data: unknown): RequestEvent | null {
  try {
    const value = JSON.parse(String(data)) as Partial<RequestEvent> | null;
    if (value && typeof value.auth_req_id === 'string' && typeof value.state === 'string') {
      return { auth_req_id: value.auth_req_id, state: value.state };
    }
  } catch {
    // A malformed event still means something changed.
  }
  return null;
}

function parseDeviceEvent(data: unknown): DeviceRemovedEvent | null {
  try {
    const value = JSON.parse(String(data)) as Partial<DeviceRemovedEvent> | null;
    if (value?.kind === 'device_removed' && typeof value.device_id === 'string' && typeof value.name === 'string' && (value.by === 'operator' || value.by === 'person')) {
      return { kind: value.kind, device_id: value.device_id, name: value.name, by: value.by, this_device: value.this_device === true, by_this_device: value.by_this_device === true };
    }
  } catch {
    // Not an event this app knows: the next call tells a removed device anyway.
  }
  return null;
}
