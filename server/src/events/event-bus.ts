import { EventEmitter } from 'node:events';

/** A change a user's open PWA should see: one of their requests moved. */
export interface RequestChanged {
  auth_req_id: string;
  state: string;
}

/**
 * Fan-out of request changes to the open device sessions (server-sent events) of this process:
 * the bus of a single instance, and of the in-memory store. With several instances on one Redis,
 * {@link RedisEventBus} (same interface) carries each change to every instance.
 *
 * Best effort by design: a change is written to the store before it is published, and the PWA
 * reads the store again whenever its stream (re)opens, so a lost event only delays what it shows.
 */
export class EventBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  /** Tells every open session of the user. Never throws and never waits. */
  publish(tenant: string, sub: string, event: RequestChanged): void {
    this.deliver(tenant, sub, event);
  }

  /** Listens to one user's changes; returns the function that stops listening. */
  subscribe(tenant: string, sub: string, listener: (event: RequestChanged) => void): () => void {
    const name = channelOf(tenant, sub);
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }

  /** Releases what the bus holds (nothing here; a Redis bus its subscriber connection). */
  async close(): Promise<void> {}

  /** Hands an event to this process's listeners of the user. */
  protected deliver(tenant: string, sub: string, event: RequestChanged): void {
    this.#emitter.emit(channelOf(tenant, sub), event);
  }
}

function channelOf(tenant: string, sub: string): string {
  return `${tenant}\u0000${sub}`;
}
