import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { answerClientErrors, nodeServerOptions } from './http/index.ts';
import { createApp } from './app.ts';
import { loadConfig, type Config } from './config/index.ts';
import { createDeps } from './create-deps.ts';
import { seedDevelopment } from './seed-development.ts';
import { consoleLogger, randomId } from './runtime/index.ts';
import { connectRedisEventBus, type EventBus } from './events/index.ts';
import { connectRedis, MemoryStore, RedisStore, type RedisTarget, type Store } from './store/index.ts';

/** The key prefix of the Redis store, and of its pub/sub channel. */
const REDIS_PREFIX = 'cs:';

/**
 * The store: Redis (`REDIS_URL`) or a Redis Cluster (`REDIS_CLUSTER_NODES`), with the event bus that
 * carries live updates between the instances sharing it; otherwise the in-memory store and its
 * in-process bus (`events` undefined).
 */
async function openStore(config: Config): Promise<{ store: Store; events?: EventBus }> {
  const target: RedisTarget | undefined = config.redisCluster
    ? { kind: 'cluster', ...config.redisCluster }
    : config.redisUrl
      ? { kind: 'single', url: config.redisUrl }
      : undefined;
  if (target) {
    const redis = await connectRedis(target, {
      commandTimeoutMs: config.redisCommandTimeoutMs,
      onError: (error) => consoleLogger.error('redis error', { error: error.message }),
    });
    const store = new RedisStore({ redis, prefix: REDIS_PREFIX });
    return { store, events: await connectRedisEventBus({ redis, channel: `${REDIS_PREFIX}events`, log: consoleLogger }) };
  }
  consoleLogger.warn('REDIS_URL is unset: using the in-memory store. Everything is lost on restart; use it for development only.');
  return { store: new MemoryStore() };
}

/** `pnpm start`: validate the configuration, open the store, load keys, serve. */
async function main(): Promise<void> {
  const config = loadConfig();
  const { store, events } = await openStore(config);
  const deps = await createDeps(config, store, events ? { events } : {});
  const adminToken = config.adminToken ?? randomId(24);
  const app = createApp(deps, { adminToken });
  // Expire loudly: requests past their deadline are settled, and ping/push clients told, without a poll.
  deps.sweeper.start();
  // Background work (pushes, client notifications, their retries) from the queue every instance shares.
  deps.jobs.start();
  const server = serve({ fetch: app.fetch, port: config.port, hostname: config.production ? '0.0.0.0' : 'localhost', serverOptions: nodeServerOptions() }, async (info) => {
    deps.log.info('countersign listening', { port: info.port, issuer: config.publicUrl, store: store.kind, mode: config.production ? 'production' : 'development' });
    if (!config.production) await seedDevelopment(deps, { adminToken, adminTokenGenerated: !config.adminToken });
  });
  // Malformed HTTP and timed-out requests get an OAuth error body and the security headers too.
  answerClientErrors(server as Server, { https: config.publicUrl.startsWith('https:') });
  const stop = () => {
    deps.sweeper.stop();
    // Takes no new job; the ones running finish. Jobs still queued stay for the other instances.
    const jobsStopped = deps.jobs.stop();
    server.close(async () => {
      await jobsStopped;
      await deps.background.drain();
      await deps.events.close();
      await store.close();
      process.exit(0);
    });
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
