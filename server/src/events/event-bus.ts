import { EventEmitter } from 'node:events';

/** A change a user's open PWA should see: one of their requests moved. */
export interface RequestChanged {
  auth_req_id: string;
  state: string;
}

/**
 * In-process fan-out of request changes to the open device sessions (server-sent events).
 * One instance only; several instances will need Redis pub/sub behind the same interface.
 */
export class EventBus {
  readonly #emitter = new EventEmitter().setMaxListeners(0);

  /** Tells every open session of the user. */
  publish(tenant: string, sub: string, event: RequestChanged): void {
    this.#emitter.emit(`${tenant}\u0000${sub}`, event);
  }

  /** Listens to one user's changes; returns the function that stops listening. */
  subscribe(tenant: string, sub: string, listener: (event: RequestChanged) => void): () => void {
    const name = `${tenant}\u0000${sub}`;
    this.#emitter.on(name, listener);
    return () => this.#emitter.off(name, listener);
  }
}
