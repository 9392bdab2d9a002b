import type { ClientNotifierOptions, Deps, DepsOverrides, Logger, MemoryStore, OffsetClock, PushSender, Store } from '@countersign/server';
import type { Hono } from 'hono';
import type { AssertionOverrides, SoftAuthenticator, SoftAuthenticatorOptions } from './soft-authenticator.ts';

// The shapes of the test harness (harness.ts): its options, an enrolled user, and the harness itself.

/** Options of `createHarness`. */
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
