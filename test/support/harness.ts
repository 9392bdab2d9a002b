import { serve, type ServerType } from '@hono/node-server';
import { createApp, createDeps, loadConfig, MemoryStore, OffsetClock, silentLogger, type ClientNotifierOptions, type Deps, type DepsOverrides, type Logger, type PushSender, type Store } from '@countersign/server';
import type { Hono } from 'hono';
import { createServer } from 'node:net';
import { createSoftAuthenticator, type AssertionOverrides, type SoftAuthenticator, type SoftAuthenticatorOptions } from './soft-authenticator.ts';
import { connectTestDeployment, type TestRedis } from './cluster.ts';

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

/** Options of {@link createHarness}. */
export interface HarnessOptions {
  /** `redis`: the run's Redis; `cluster`: the run's 3-master Redis Cluster; both with a `RedisEventBus`. */
  store?: 'memory' | 'redis' | 'cluster';
  /** A Redis of the test's own (one it stops or pauses) instead of the run's; implies `store: 'redis'`. */
  redisUrl?: string;
  /** The Redis key prefix (and event channel); a fresh one by default. See {@link Harness.instance}. */
  redisPrefix?: string;
  /** ioredis `commandTimeout` in ms; small in tests of a stalled Redis. */
  redisCommandTimeoutMs?: number;
  /** The server's clock; a fresh one by default. Instances of one deployment share theirs. */
  clock?: OffsetClock;
  /** A memory store to use instead of a fresh one (how a second instance shares the first's). */
  memoryStore?: MemoryStore;
  /** `PUBLIC_URL`; `http://localhost:8080` by default (requests go through `app.request`, no socket). */
  publicUrl?: string;
  pushSender?: PushSender;
  /** The server's logger; silent by default. */
  log?: Logger;
  env?: Record<string, string>;
  /** Ping and push delivery options (`fetch`, `timeoutMs`, `retryDelaysMs`). */
  notifications?: ClientNotifierOptions;
  /**
   * The job queue's consumer (`consume`, `minIdleMs`, `concurrency`, …). Unless a test gives its own
   * `onRetry`, every retry's backoff is recorded in {@link Harness.sleeps}. The consumer's timers are
   * not started: the instance runs jobs right after it enqueues them, and when told to.
   */
  jobs?: DepsOverrides['jobs'];
}

/** An enrolled user: their software passkey and their device session cookie. */
export interface EnrolledUser {
  sub: string;
  authenticator: SoftAuthenticator;
  cookie: string;
}

/**
 * A whole Countersign server for tests: real app, real store (memory or the test Redis), an
 * injected clock, and helpers that play the operator and the person's phone (a software passkey
 * through the real device API).
 */
export interface Harness {
  app: Hono;
  deps: Deps;
  store: Store;
  /** The server's clock: real time, plus whatever a test `advance`s. */
  clock: OffsetClock;
  /**
   * Every backoff wait (ms) this instance's job queue scheduled for a retry, in order; none of them
   * is waited: {@link Harness.drain} moves the clock to the retry's due time instead.
   */
  sleeps: number[];
  issuer: string;
  adminToken: string;
  /** A `fetch` that sends absolute URLs under the issuer to the app, for the agent client. */
  fetch: typeof fetch;
  /** Calls the app with a JSON body (or none) and answers status and parsed JSON. */
  call(method: string, path: string, init?: { body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  admin(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  createClient(name?: string): Promise<{ client_id: string; client_secret: string }>;
  /** Creates the user, an enrollment, and registers a software passkey through the device API. */
  enrollUser(sub: string, authenticator?: Partial<SoftAuthenticatorOptions>): Promise<EnrolledUser>;
  /** Opens the request on the phone and decides it with the passkey; answers the decision call. */
  decide(user: EnrolledUser, authReqId: string, decision: 'approve' | 'deny', overrides?: AssertionOverrides): Promise<{ status: number; body: any }>;
  /** Serves the app on `port` (the one in `publicUrl`) for browsers and real HTTP clients. */
  listen(port: number): Promise<void>;
  /**
   * Another server instance of the same deployment, as a second process behind a load balancer
   * would be: the same config, admin token, clock and issuer, and the same data; on Redis its own
   * connection and its own event bus on the shared channel. `overrides` adds options of its own
   * (a notification `fetch`, …). Close it as well as this one.
   */
  instance(overrides?: HarnessOptions): Promise<Harness>;
  /**
   * Runs this instance's background work to the end, retries included: runs every job that can
   * run now, then moves the clock to the next retry's due time, moves the due retries into the
   * queue, and goes on until no job is queued, waiting or running. The waits skipped are in
   * {@link Harness.sleeps}.
   */
  drain(): Promise<void>;
  close(): Promise<void>;
  /**
   * Drops this instance as a killed process would go: closes its connections without finishing its
   * background work, acknowledging its jobs or waiting for anything. What it held is left to the
   * other instances.
   */
  crash(): Promise<void>;
}

export async function createHarness(options: HarnessOptions = {}): Promise<Harness> {
  const issuer = options.publicUrl ?? 'http://localhost:8080';
  const clock = options.clock ?? new OffsetClock();
  const redis: TestRedis | null = options.redisUrl ? { url: options.redisUrl } : options.store === 'redis' || options.store === 'cluster' ? options.store : null;
  const deployment = redis
    ? await connectTestDeployment(redis, { ...(options.redisPrefix ? { prefix: options.redisPrefix } : {}), ...(options.redisCommandTimeoutMs ? { commandTimeoutMs: options.redisCommandTimeoutMs } : {}) })
    : null;
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

  const device = (user: EnrolledUser, method: string, path: string, body?: unknown) =>
    call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, origin: issuer } });

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
    async enrollUser(sub, authenticatorOptions = {}) {
      await admin('POST', '/users', { sub, display_name: sub });
      const enrollment = await admin('POST', `/users/${sub}/enrollments`);
      const code = enrollment.body.enrollment_code as string;
      const authenticator = createSoftAuthenticator({ origin: issuer, rpId: new URL(issuer).hostname, ...authenticatorOptions });
      const optionsCall = await call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: issuer } });
      const response = await authenticator.register(optionsCall.body);
      const verify = await call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response, device_name: 'Test phone' }, headers: { origin: issuer } });
      if (verify.status !== 200) throw new Error(`enrollment failed: ${JSON.stringify(verify.body)}`);
      const cookie = (verify.headers.get('set-cookie') ?? '').split(';')[0]!;
      return { sub, authenticator, cookie };
    },
    async decide(user, authReqId, decision, overrides) {
      const view = await device(user, 'GET', `/requests/${authReqId}`);
      if (view.status !== 200 || !view.body.options) return view;
      const response = await user.authenticator.authenticate(view.body.options[decision], overrides);
      return device(user, 'POST', `/requests/${authReqId}/decision`, { decision, response });
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
export const UNLIMITED_RATES: Record<string, string> = Object.fromEntries(
  ['BC_AUTHORIZE', 'TOKEN', 'REDEEM', 'OUTCOME', 'CLIENT_AUTH_FAILURES', 'ADMIN_AUTH_FAILURES', 'DEVICE_VIEWS', 'DEVICE_STREAMS', 'DEVICE_CHANGES', 'ENROLLMENT_FAILURES'].map((name) => [`RATE_LIMIT_${name}`, '1000000/1']),
);
