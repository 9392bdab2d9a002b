import type { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { serve } from '@hono/node-server';
import { answerClientErrors, nodeServerOptions } from './http/index.ts';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config/index.ts';
import { createDeps } from './create-deps.ts';
import { seedDevelopment } from './seed-development.ts';
import { createPinoLogger, randomId, type Logger } from './runtime/index.ts';
import { connectRedisEventBus, type EventBus } from './events/index.ts';
import { checkPersistence, connectRedis, MemoryStore, RedisStore, storeTargetOf, type Store } from './store/index.ts';

/** The key prefix of the Redis store, and of its pub/sub channel. */
const REDIS_PREFIX = 'cs:';

/**
 * The store: Redis (`REDIS_URL`) or a Redis Cluster (`REDIS_CLUSTER_NODES`), with the event bus that
 * carries live updates between the instances sharing it; otherwise the in-memory store and its
 * in-process bus (`events` undefined), in development only (see `storeTargetOf`).
 */
async function openStore(config: Config, log: Logger): Promise<{ store: Store; events?: EventBus }> {
  const target = storeTargetOf(config);
  if (target) {
    const redis = await connectRedis(target, {
      commandTimeoutMs: config.redisCommandTimeoutMs,
      onError: (error) => log.error('redis error', { error: error.message }),
    });
    // A Redis that forgets on restart takes every approval and the audit trail with it: production
    // refuses it unless told that loss is accepted (docs/security.md "Redis persistence").
    await checkPersistence(redis, { production: config.production, setting: config.redisPersistence, warn: (message) => log.warn(message) }).catch((error: unknown) => {
      redis.disconnect();
      throw error;
    });
    const store = new RedisStore({ redis, prefix: REDIS_PREFIX });
    return { store, events: await connectRedisEventBus({ redis, channel: `${REDIS_PREFIX}events`, log }) };
  }
  log.warn('REDIS_URL is unset: using the in-memory store. Everything is lost on restart; use it for development only.');
  return { store: new MemoryStore() };
}

/** Milliseconds after a stopping server stops listening before it closes the connections left idle. */
const IDLE_CLOSE_MS = 1_000;
/** Milliseconds a stopping server lets requests in flight finish before it cuts every connection. */
const SHUTDOWN_GRACE_MS = 5_000;
/** Milliseconds after that for the queue, the background work and the store to close before the process exits anyway. */
const SHUTDOWN_FORCE_MS = 10_000;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** `LOG_LEVEL` (`info` by default); an unknown level stops the server with the ones it knows. */
function logLevel(value: string | undefined): (typeof LOG_LEVELS)[number] {
  if (value === undefined || value === '') return 'info';
  const level = LOG_LEVELS.find((known) => known === value);
  if (!level) throw new Error(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(value)}`);
  return level;
}

/** `pnpm start`: validate the configuration, open the store, load keys, serve. */
async function main(): Promise<void> {
  const config = loadConfig();
  // JSON lines for a log pipeline; readable lines on a developer's terminal.
  const log = await createPinoLogger({ pretty: !config.production && process.stdout.isTTY === true, level: logLevel(process.env.LOG_LEVEL) });
  const { store, events } = await openStore(config, log);
  const deps = await createDeps(config, store, { log, ...(events ? { events } : {}) });
  const adminToken = config.adminToken ?? randomId(24);
  let stopping = false;
  const app = createApp(deps, { adminToken, draining: () => stopping });
  // Expire loudly: requests past their deadline are settled, and ping/push clients told, without a poll.
  deps.sweeper.start();
  // Background work (pushes, client notifications, their retries) from the queue every instance shares.
  deps.jobs.start();
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.production ? '0.0.0.0' : 'localhost', serverOptions: nodeServerOptions() }, async (info) => {
    deps.log.info('countersign listening', { port: info.port, issuer: config.publicUrl, store: store.kind, mode: config.production ? 'production' : 'development' });
    if (!config.production) await seedDevelopment(deps, { adminToken, adminTokenGenerated: !config.adminToken });
  });
  // Malformed HTTP and timed-out requests get an OAuth error body and the security headers too.
  const http = server as Server;
  answerClientErrors(http, { https: config.publicUrl.startsWith('https:') });
  http.once('error', (error: NodeJS.ErrnoException) => {
    // A port in use, or not ours to bind, is a configuration problem: say so in one line.
    console.error(error.code === 'EADDRINUSE' ? `Port ${config.port} is already in use; set PORT to a free one.` : `Cannot listen on port ${config.port}: ${error.message}`);
    process.exit(1);
  });
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const drainMs = config.shutdownDrainSeconds * 1000;
    deps.log.info('countersign stopping', { drain_seconds: config.shutdownDrainSeconds, grace_seconds: SHUTDOWN_GRACE_MS / 1000 });
    deps.sweeper.stop();
    // Takes no new job; the ones running finish. Jobs still queued stay for the other instances.
    const jobsStopped = deps.jobs.stop();
    setTimeout(() => {
      // Stops listening, and only that (net.Server's close): http.Server's own close also drops
      // every connection without a request in flight, which includes one just accepted whose
      // request has not been read yet; that request would be cut, unanswered. Connections end
      // after their answer instead (`Connection: close`), idle ones when their keep-alive ends.
      NetServer.prototype.close.call(http, async () => {
        await jobsStopped;
        await deps.background.drain();
        await deps.events.close();
        await store.close();
        process.exit(0);
      });
      // Then, a moment later, the connections still idle (kept alive from before the stop): one
      // accepted just now has sent its request by then and is not idle.
      setTimeout(() => http.closeIdleConnections(), IDLE_CLOSE_MS).unref();
      // Requests in flight and the PWA's live-update streams (which never end on their own) get a
      // grace period, then are cut, so a stop never waits on a browser.
      setTimeout(() => http.closeAllConnections(), SHUTDOWN_GRACE_MS).unref();
      setTimeout(() => {
        deps.log.error('countersign did not stop in time; exiting', { after_seconds: (drainMs + SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_MS) / 1000 });
        process.exit(1);
      }, SHUTDOWN_GRACE_MS + SHUTDOWN_FORCE_MS).unref();
    }, drainMs);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
