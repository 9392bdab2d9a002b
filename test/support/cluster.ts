import type { Cluster, Redis } from 'ioredis';
import { inject } from 'vitest';
import { connectRedisEventBus, type RedisEventBus } from '../../server/src/events/index.ts';
import type { Logger } from '../../server/src/runtime/index.ts';
import { connectRedis, RedisStore, type RedisTarget } from '../../server/src/store/index.ts';
import { testPrefix } from './redis.ts';

export { testPrefix } from './redis.ts';
export { startRedisCluster, startRedisServer, stopRedisServer, type RedisServerProcess } from '../setup/redis-cluster.ts';

/** The run's 3-master Redis Cluster (`test/setup/redis-cluster.ts`), as the server would be configured with it. */
export function clusterTarget(): RedisTarget {
  const nodes = inject('redisClusterNodes')
    .split(',')
    .map((address) => {
      const [host, port] = address.split(':');
      return { host: host!, port: Number(port) };
    });
  return { kind: 'cluster', nodes };
}

/** Which Redis a test deployment uses: the run's single Redis, the run's cluster, or a URL of the test's own. */
export type TestRedis = 'redis' | 'cluster' | { url: string };

/** What {@link connectTestDeployment} opens: one instance's connection, store and event bus. */
export interface TestDeployment {
  redis: Redis | Cluster;
  store: RedisStore;
  events: RedisEventBus;
  prefix: string;
}

/**
 * Connects one server instance to a test Redis as `main.ts` does (`connectRedis`, a `RedisStore`
 * and a `RedisEventBus` on the prefix's channel). Two calls with the same `prefix` are two
 * instances of one deployment. Close `events`, then `store`.
 */
export async function connectTestDeployment(which: TestRedis, options: { prefix?: string; commandTimeoutMs?: number; log?: Logger } = {}): Promise<TestDeployment> {
  const target: RedisTarget = which === 'cluster' ? clusterTarget() : { kind: 'single', url: which === 'redis' ? inject('redisUrl') : which.url };
  const prefix = options.prefix ?? testPrefix();
  const log = options.log ?? { info() {}, warn() {}, error() {} };
  const redis = await connectRedis(target, { onError: () => {}, ...(options.commandTimeoutMs === undefined ? {} : { commandTimeoutMs: options.commandTimeoutMs }) });
  const store = new RedisStore({ redis, prefix });
  const events = await connectRedisEventBus({ redis, channel: `${prefix}events`, log });
  return { redis, store, events, prefix };
}

/** A {@link RedisStore} on the run's Redis Cluster; the same `prefix` gives another handle on the same data. */
export async function testClusterStore(options: { prefix?: string } = {}): Promise<RedisStore> {
  const redis = await connectRedis(clusterTarget(), { onError: () => {} });
  return new RedisStore({ redis, prefix: options.prefix ?? testPrefix() });
}

/** One server-sent event as the PWA's `EventSource` would see it. */
export interface StreamedEvent {
  event: string;
  data: string;
}

/** A device's open `/api/device/events` stream, read event by event. */
export interface EventStream {
  /** The next event (keep-alive comments skipped) that `accept` takes; fails after `timeoutMs` (3 s). */
  next(accept?: (event: StreamedEvent) => boolean, timeoutMs?: number): Promise<StreamedEvent>;
  close(): Promise<void>;
}

/**
 * Opens the PWA's live stream on one instance with a device session cookie, as `EventSource`
 * would, and waits for its `ready` event.
 */
export async function openEventStream(instance: { app: { request: (url: string, init: RequestInit) => Response | Promise<Response> }; issuer: string }, cookie: string): Promise<EventStream> {
  const response = await instance.app.request(`${instance.issuer}/api/device/events`, { headers: { cookie, accept: 'text/event-stream' } });
  if (response.status !== 200 || !response.body) throw new Error(`event stream refused: ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let pending: Promise<ReadableStreamReadResult<string>> | null = null;

  async function nextBlock(deadline: number): Promise<StreamedEvent | null> {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const lines = block.split('\n').filter((line) => !line.startsWith(':'));
        if (lines.length === 0) return null;
        const field = (name: string) =>
          lines
            .filter((line) => line.startsWith(`${name}:`))
            .map((line) => line.slice(name.length + 1).trimStart())
            .join('\n');
        return { event: field('event') || 'message', data: field('data') };
      }
      // One read in flight at a time: a read that lost the race to the deadline is picked up next call.
      pending ??= reader.read();
      const left = deadline - Date.now();
      const timer = new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), Math.max(0, left)).unref());
      const result = await Promise.race([pending, timer]);
      if (result === 'timeout') throw new Error('no matching server-sent event in time');
      pending = null;
      if (result.done) throw new Error('the event stream ended');
      buffer += result.value;
    }
  }

  const stream: EventStream = {
    async next(accept = () => true, timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const event = await nextBlock(deadline);
        if (event && accept(event)) return event;
      }
    },
    async close() {
      await reader.cancel().catch(() => undefined);
    },
  };
  await stream.next((event) => event.event === 'ready');
  return stream;
}
