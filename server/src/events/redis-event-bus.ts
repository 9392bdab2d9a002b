import { randomBytes } from 'node:crypto';
import type { Cluster, Redis } from 'ioredis';
import type { Logger } from '../runtime/index.ts';
import { EventBus, type LiveEvent } from './event-bus.ts';
import { encodeWireEvent, parseWireEvent } from './wire-event.ts';

/** Options of {@link connectRedisEventBus}. */
export interface RedisEventBusOptions {
  /**
   * The connection (or cluster) that publishes, shared with the store; the bus does not close it.
   * The subscriber is a `duplicate()` of it, owned and closed by the bus.
   */
  redis: Redis | Cluster;
  /** The pub/sub channel of this deployment, e.g. `cs:events` (the store's key prefix + `events`). */
  channel: string;
  log: Logger;
}

/**
 * The {@link EventBus} of several instances on one Redis (or Redis Cluster): an event (a request
 * change, a device removal) published on any instance reaches the open PWA streams on every
 * instance. The messages are versioned JSON (`wire-event.ts`), so instances of the previous
 * release, during a rolling upgrade, go on delivering request changes and skip what they do not know.
 *
 * One channel per deployment, plain pub/sub (PUBLISH / SUBSCRIBE), subscribed once when the
 * instance starts, on a connection of its own (a subscribed connection can do nothing else):
 * - Subscribed before the instance serves, so no stream can open in a window where the instance
 *   would miss a change; a channel per user, subscribed as streams open, would have that window
 *   unless `subscribe` waited for Redis.
 * - Every instance receives every change and keeps those its open streams want. A change is a few
 *   dozen bytes, a handful per approval, so this costs nothing next to the approval itself.
 * - On a Redis Cluster, a plain PUBLISH reaches subscribers on every node over the cluster bus,
 *   so the subscriber can sit on any node and ioredis moves it (and resubscribes) when that node
 *   fails. Sharded pub/sub (SPUBLISH / SSUBSCRIBE, Redis 7) would keep each message on one shard,
 *   but a single channel would then put all of them on one shard anyway; it pays off with a
 *   channel per user (`events:{tenant:sub}`), the step to take when the event rate or the number
 *   of instances makes broadcasting to all of them wasteful.
 *
 * Changes are delivered to this instance's own streams at once, not via Redis (an instance skips
 * its own messages), so a Redis hiccup never delays what the instance itself did. A publish that
 * fails is logged and dropped: the change itself is already in the store (see {@link EventBus}).
 */
export class RedisEventBus extends EventBus {
  readonly #publisher: Redis | Cluster;
  readonly #subscriber: Redis | Cluster;
  readonly #channel: string;
  readonly #log: Logger;
  /** This instance's id on the channel, so it skips its own messages. */
  readonly #origin = randomBytes(9).toString('base64url');

  private constructor(options: RedisEventBusOptions, subscriber: Redis | Cluster) {
    super();
    this.#publisher = options.redis;
    this.#subscriber = subscriber;
    this.#channel = options.channel;
    this.#log = options.log;
    subscriber.on('message', (channel: string, message: string) => {
      if (channel === this.#channel) this.#receive(message);
    });
  }

  /**
   * Opens the subscriber connection and subscribes to `channel`; resolves once Redis confirmed
   * the subscription, so an instance serves only once it hears every other instance. ioredis
   * resubscribes by itself after a reconnect.
   *
   * @throws when Redis does not confirm the subscription.
   */
  static async connect(options: RedisEventBusOptions): Promise<RedisEventBus> {
    // Same address, options and credentials as the publisher (both kinds have `duplicate()`).
    const subscriber = (options.redis.duplicate as () => Redis | Cluster).call(options.redis);
    subscriber.on('error', (error: Error) => options.log.warn('redis event bus error', { error: error.message }));
    try {
      // A client made with `lazyConnect` (as `connectRedis` makes them) waits for this call.
      if (subscriber.status === 'wait') await subscriber.connect();
      await subscriber.subscribe(options.channel);
    } catch (error) {
      subscriber.disconnect();
      throw error;
    }
    return new RedisEventBus(options, subscriber);
  }

  protected override publishLive(tenant: string, sub: string, live: LiveEvent): void {
    this.deliver(tenant, sub, live);
    this.#publisher.publish(this.#channel, encodeWireEvent(this.#origin, tenant, sub, live)).catch((error: unknown) => {
      const about = live.kind === 'request' ? { auth_req_id: live.event.auth_req_id } : { device_id: live.event.device_id };
      this.#log.warn('live update not published', { kind: live.kind, ...about, error: String(error) });
    });
  }

  override async close(): Promise<void> {
    if (this.#subscriber.status === 'end') return;
    await this.#subscriber.quit().catch(() => this.#subscriber.disconnect());
  }

  #receive(message: string): void {
    const wire = parseWireEvent(message);
    if (wire.status === 'malformed') this.#log.warn('malformed live update ignored', { channel: this.#channel });
    else if (wire.status === 'event' && wire.origin !== this.#origin) this.deliver(wire.tenant, wire.sub, wire.live);
  }
}

/** Shorthand for {@link RedisEventBus.connect}. */
export function connectRedisEventBus(options: RedisEventBusOptions): Promise<RedisEventBus> {
  return RedisEventBus.connect(options);
}
