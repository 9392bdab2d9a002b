import { EventEmitter } from 'node:events';

/** A change a user's open PWA should see: one of their requests moved. */
export interface RequestChanged {
  auth_req_id: string;
  state: string;
}

/**
 * One of a user's devices left their account: revoked by an operator (a lost phone), or removed
 * by the person from one of their devices. The user's other open PWAs say so; the removed one's
 * stream ends, since its sessions stopped working with the removal.
 */
export interface DeviceRemoved {
  device_id: string;
  /** The device's name as the person gave it, e.g. `Pixel`. */
  name: string;
  by: 'operator' | 'person';
  /** The device the person removed it from (`by: person` only). */
  by_device_id?: string;
}

/** What the bus carries to a user's open sessions: a request change, or a device removal. */
export type LiveEvent = { kind: 'request'; event: RequestChanged } | { kind: 'device_removed'; event: DeviceRemoved };

/**
 * Fan-out of live events (request changes, device removals) to the open device sessions
 * (server-sent events) of this process: the bus of a single instance, and of the in-memory store.
 * With several instances on one Redis, {@link RedisEventBus} (same interface) carries each event
 * to every instance.
 *
 * Best effort by design: what an event tells is written to the store before it is published, and
 * the PWA reads the store again whenever its stream (re)opens, so a lost event only delays what it
 * shows (a removed device finds out at its next call, which answers `login_required`).
 */
export class EventBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  /** Tells every open session of the user that one of their requests changed. Never throws and never waits. */
  publish(tenant: string, sub: string, event: RequestChanged): void {
    this.publishLive(tenant, sub, { kind: 'request', event });
  }

  /** Tells every open session of the user that one of their devices was removed. Never throws and never waits. */
  publishDeviceRemoved(tenant: string, sub: string, event: DeviceRemoved): void {
    this.publishLive(tenant, sub, { kind: 'device_removed', event });
  }

  /** Listens to one user's events; returns the function that stops listening. */
  subscribe(tenant: string, sub: string, listener: (event: LiveEvent) => void): () => void {
    const name = channelOf(tenant, sub);
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }

  /** Releases what the bus holds (nothing here; a Redis bus its subscriber connection). */
  async close(): Promise<void> {}

  /** Publishes an event of either kind: here, only to this process's listeners. */
  protected publishLive(tenant: string, sub: string, event: LiveEvent): void {
    this.deliver(tenant, sub, event);
  }

  /** Hands an event to this process's listeners of the user. */
  protected deliver(tenant: string, sub: string, event: LiveEvent): void {
    this.#emitter.emit(channelOf(tenant, sub), event);
  }
}

function channelOf(tenant: string, sub: string): string {
  return `${tenant}\u0000${sub}`;
}
