import type { DeviceSession } from '../api/index.ts';
import type { RequestEvents } from '../live/request-events.ts';

/** What a screen of an enrolled device is given when it is mounted. */
export interface ScreenContext {
  /** The `<main>` element; the screen owns its children until it is disposed. */
  root: HTMLElement;
  /** Aborted when the person leaves the screen: pending fetches stop, late answers are dropped. */
  signal: AbortSignal;
  session: DeviceSession;
  events: RequestEvents;
  /** The server said this device is not enrolled (any more): show that instead. */
  loginRequired(): void;
}

/** Stops a screen's timers and subscriptions. */
export type Dispose = () => void;
