import { serve, type ServerType } from '@hono/node-server';
import { createApp, createDeps, loadConfig, MemoryStore, OffsetClock, silentLogger, type Store } from '@countersign/server';
import { createServer } from 'node:net';
import { connectTestDeployment, type TestRedis } from './cluster.ts';
import { decideRequest, enrollUser } from './harness-phone.ts';
import type { Harness, HarnessOptions } from './harness-types.ts';

export type { EnrolledUser, Harness, HarnessOptions } from './harness-types.ts';

/** A free TCP port on loopback, for a server whose `PUBLIC_URL` must be known before it starts. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/**
 * A whole Countersign server for a test (see {@link Harness}): the real app on a memory store, or
 * on the run's Redis or Redis Cluster (`options.store`, `options.redisUrl`), with an injected
 * clock. Close it (`close()`) at the end of the test.
 */
export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const issuer = options.publicUrl ?? 'http://localhost:8080';
  const clock = options.clock ?? new OffsetClock();
  const redis: TestRedis | null = options.redisUrl ? { url: options.redisUrl } : options.store === 'redis' || options.store === 'cluster' ? options.store : null;
  const deployment = redis ? await connectTestDeployment(redis, { ...(options.redisPrefix ? { prefix: options.redisPrefix } : {}), ...(options.redisCommandTimeoutMs ? { commandTimeoutMs: options.redisCommandTimeoutMs } : {}) }) : null;
  const store: Store = deployment?.store ?? options.memoryStore ?? new MemoryStore({ now: () => clock.now() });
  const adminToken = 'test-admin-token-0123456789abcdef';
  // The request deadline (request-deadline.ts) is the same command timeout the connection has.
  const timeout = options.redisCommandTimeoutMs ? { REDIS_COMMAND_TIMEOUT_MS: String(options.redisCommandTimeoutMs) } : {};
  const config = loadConfig({ PUBLIC_URL: issuer, NODE_ENV: 'test', ...timeout, ...options.env });
  const sleeps: number[] = [];
  const deps = await createDeps(config, store, {
    clock,
    log: options.log ?? silentLogger,
    ...(options.notifications ? { notifications: options.notifications } : {}),
    jobs: { onRetry: (_job, delayMs) => void sleeps.push(delayMs), ...options.jobs },
    ...(options.pushSender ? { pushSender: options.pushSender } : {}),
    ...(deployment ? { events: deployment.events } : {}),
  });
  const app = createApp(deps, { adminToken });
  let server: ServerType | undefined;

  const fetchApp: typeof fetch = async (input, init) => app.request(input instanceof Request ? input : String(input), init);

  const call: Harness['call'] = async (method, path, init = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers['content-type'] ??= 'application/json';
    const response = await app.request(`${issuer}${path}`, {
      method,
      headers,
      body: init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body),
    });
    const text = await response.text();
    let body: unknown = text;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      /* not JSON: keep the text */
    }
    return { status: response.status, body, headers: response.headers };
  };

  const admin: Harness['admin'] = (method, path, body) => call(method, `/api/admin${path}`, { body, headers: { authorization: `Bearer ${adminToken}` } });

  return {
    app,
    deps,
    store,
    clock,
    sleeps,
    issuer,
    adminToken,
    fetch: fetchApp,
    call,
    admin,
    async createClient(name = 'Test agent') {
      const { status, body } = await admin('POST', '/clients', { name });
      if (status !== 201) throw new Error(`client not created: ${JSON.stringify(body)}`);
      return { client_id: body.client_id, client_secret: body.client_secret };
    },
    enrollUser(sub, authenticatorOptions = {}) {
      return enrollUser({ issuer, call, admin }, sub, authenticatorOptions);
    },
    decide(user, authReqId, decision, overrides) {
      return decideRequest({ issuer, call, admin }, user, authReqId, decision, overrides);
    },
    async listen(port) {
      await new Promise<void>((resolve) => {
        server = serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, () => resolve());
      });
    },
    instance(overrides = {}) {
      return createHarness({
        ...options,
        publicUrl: issuer,
        clock,
        ...(deployment ? { redisPrefix: deployment.prefix } : { memoryStore: store as MemoryStore }),
        ...overrides,
      });
    },
    async drain() {
      for (;;) {
        await deps.background.drain();
        if ((await deps.jobs.drain()) > 0) continue;
        const due = await deps.jobs.nextDueAt();
        if (due === null) return;
        const wait = due - clock.now();
        if (wait > 0) clock.advance(wait / 1000);
        await deps.jobs.tick();
      }
    },
    async close() {
      await deps.jobs.stop();
      await deps.background.drain();
      if (server) await new Promise<void>((resolve) => server!.close(() => resolve()));
      await deps.events.close();
      // A memory store handed in belongs to the instance that made it.
      if (!options.memoryStore) await store.close();
    },
    async crash() {
      await deps.events.close();
      if (!options.memoryStore) await store.close();
    },
  };
}

/**
 * The rate limits (`RATE_LIMIT_*`) raised far above what any test reaches, for a harness's `env`:
 * for suites that make hundreds of calls (or failed authentications from the one source every
 * `app.request()` shares) on purpose, and are not about the limits.
 */
export const UNLIMITED_RATES: Record<string, string> = Object.fromEntries(['BC_AUTHORIZE', 'TOKEN', 'REDEEM', 'OUTCOME', 'CLIENT_AUTH_FAILURES', 'ADMIN_AUTH_FAILURES', 'DEVICE_VIEWS', 'DEVICE_STREAMS', 'DEVICE_CHANGES', 'ENROLLMENT_FAILURES'].map((name) => [`RATE_LIMIT_${name}`, '1000000/1']));
