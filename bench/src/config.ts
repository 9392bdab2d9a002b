/** The benchmark's knobs. Environment variables override them; the defaults keep a run near 3 minutes. */
function number(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, got ${raw}`);
  return value;
}

export const benchConfig = {
  /** Requests in flight in every closed-loop run (`BENCH_CONNECTIONS`). */
  connections: number('BENCH_CONNECTIONS', 32),
  /** Measured seconds of each run (`BENCH_DURATION`). */
  durationSeconds: number('BENCH_DURATION', 5),
  /** Seconds of load before the measurement starts, per run (`BENCH_WARMUP`). */
  warmupSeconds: number('BENCH_WARMUP', 1),
  /** Seconds of load per profiled scenario (`BENCH_PROFILE_SECONDS`). */
  profileSeconds: number('BENCH_PROFILE_SECONDS', 2),
  /** Users who approve without push (their requests feed the polls, decisions and redemptions). */
  plainUsers: number('BENCH_USERS', 400),
  /** Users whose one device has a push subscription at the local receiver. */
  pushUsers: number('BENCH_PUSH_USERS', 48),
  /** Pending requests measured for Redis memory per request. */
  memoryRequests: 10_000,
  /** Live requests in the deadline index for the sweep measurement, and how many are due. */
  sweepLive: [1_000, 10_000, 50_000],
  sweepDue: 100,
  /** Entries already in one velocity window, for the window growth measurement. */
  windowSizes: [0, 1_000, 10_000, 50_000],
  /** Push sends timed one after another at the receiver. */
  pushSends: 300,
} as const;

/** The targets of docs/performance.md "The targets now" (benchmark figures, not tests). */
export const targets = {
  /** `/redeem` requests/s at least this share of `GET /healthz`'s. */
  redeemShareOfFloor: 0.25,
  /** `/bc-authorize` (no push) requests/s at least this multiple of the in-memory peer's. */
  bcAuthorizeOverPeer: 1,
  /** … and at least this multiple of the peer's with its state in Redis. */
  bcAuthorizeOverPeerRedis: 1.5,
  /** Redis commands (those Lua scripts run included) per `/bc-authorize` at most. */
  bcAuthorizeRedisCommands: 20,
  /** Redis CPU per `/bc-authorize` at most, microseconds. */
  bcAuthorizeRedisCpuMicros: 60,
  /** Server CPU per device decision at most, microseconds: half the 1,061 µs of the run the target was set from. */
  decisionCpuMicros: 530,
  /** p99 of `/redeem` at half its peak at most this multiple of `/healthz`'s paced at the same rate. */
  redeemP99OverHealthz: 3,
  /** The expiry sweep of the same number due, at every number alive measured: the slowest at most this multiple of the fastest. */
  sweepSpread: 1.5,
  /** Redis bytes per pending request at most. */
  memoryPerPendingBytes: 2048,
  /** Request to push at the receiver, and approval to ping, at half the step's peak: p50 and p99 at most these milliseconds. */
  deliveryP50Ms: 20,
  deliveryP99Ms: 100,
} as const;

/** The server's rate limits, as `main.ts` reads them (see the README's configuration table). */
const RATE_LIMITS = ['BC_AUTHORIZE', 'TOKEN', 'REDEEM', 'OUTCOME', 'CLIENT_AUTH_FAILURES', 'ADMIN_AUTH_FAILURES', 'DEVICE_VIEWS', 'DEVICE_STREAMS', 'DEVICE_CHANGES', 'ENROLLMENT_FAILURES'].map((name) => `RATE_LIMIT_${name}`);

/**
 * The rate limits the benchmarked server runs with: one agent drives thousands of calls a second,
 * far above the production defaults, so every limit is raised out of reach (its counter still runs
 * and costs its round trip). A `RATE_LIMIT_*` set in the benchmark's own environment is passed on
 * instead, to measure with that limit (`RATE_LIMIT_REDEEM=300/60 pnpm bench`).
 */
export function benchRateLimits(): Record<string, string> {
  return Object.fromEntries(RATE_LIMITS.map((name) => [name, process.env[name] || '1000000/1']));
}
