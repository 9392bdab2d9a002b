import { expect } from 'vitest';
import { testPolicy } from '../guarantees/policy-support.ts';
import { freePort, UNLIMITED_RATES } from '../support/harness.ts';
import type { ChaosHttp, Answer, ChaosUser } from './http-client.ts';
import { forbidden5xx, summarize, type Problems } from './invariants.ts';
import { startServer, type ServerProcess } from './processes.ts';

/**
 * The bounded chaos suite (docs/reliability.md "The chaos suite"): real faults against real
 * processes. It spawns its own redis-server, its own Redis Cluster of 3 masters and 3 replicas, and
 * two server instances per deployment as separate OS processes
 * (`node --import tsx server/src/main.ts`, development mode, so the signing and VAPID keys are
 * generated once and kept in the store), then
 * - pauses the single Redis (SIGSTOP) during a redeem storm over both instances;
 * - kill -9s an instance in the middle of a burst of approvals of a ping client, and restarts it;
 * - kill -9s the cluster master holding the tenant's audit chain during a redeem storm.
 * After each: every token redeemed at most once, every caller of a token told the same redemption,
 * every redeemed request with exactly one `redeemed` audit event and its outcome deadline, every
 * approved ping request pinged, no 5xx but 503 `temporarily_unavailable`, and `audit verify` holds.
 * What follows a transition may be delivered later (a reconciler): those checks are polled for a
 * bounded settle time. Each scenario prints one line of figures (docs/reliability.md quotes them).
 *
 * `pnpm chaos` runs the same with more load and longer faults: `CHAOS_SCALE` multiplies the
 * number of requests, `CHAOS_PAUSE_MS` is the Redis pause (3000 by default).
 *
 * What test/chaos/single-redis.test.ts and test/chaos/cluster.test.ts share: the suite's scale and
 * settle times, starting a pair of instances, and checking and printing what went wrong.
 */

/** The load multiplier (`CHAOS_SCALE`). */
export const SCALE = Math.max(1, Number(process.env.CHAOS_SCALE ?? 1));
/** How long Redis is paused, in ms (`CHAOS_PAUSE_MS`). */
export const PAUSE_MS = Math.max(500, Number(process.env.CHAOS_PAUSE_MS ?? 3000));
/** Settle time for what follows a transition (audit event, outcome deadline). */
export const SETTLE_MS = 15_000;
/**
 * Settle time for pings after a kill -9: a job the dead instance had read but not acknowledged is
 * taken over by another instance once it has been idle for `JOB_TAKEOVER_MS` (6 s here, 30 s by
 * default), and an approval whose instance died before it enqueued the ping is enqueued by the
 * outbox's reconciler about 5 s after the swap; so a ping may lawfully come that late.
 */
export const PING_SETTLE_MS = 15_000;
/** One scenario's time limit, in ms. */
export const TEST_TIMEOUT_MS = 150_000 * SCALE;

/** The admin token of every instance. */
export const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
/** The client notification token of the ping client's requests. */
export const NOTIFICATION_TOKEN = 'cnt_chaos_8f14e45fceea167a5a36dedd4bea2543';

/** The policy with room for the storm: no pending, push or velocity limit the suite could reach. */
function roomyPolicy(): string {
  return testPolicy((policy) => {
    policy.limits.max_pending_per_user = 1000;
    policy.limits.pushes_per_user = { window_seconds: 600, max_count: 10_000 };
    policy.limits.velocity.per_user.max_count = 1_000_000;
    policy.limits.velocity.per_client.max_count = 1_000_000;
  });
}

/** The environment of both instances of one deployment: one `PUBLIC_URL`, one admin token, the store. */
function serverEnv(publicUrl: string, store: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string }): Record<string, string> {
  // A dead instance's job is taken over after 6 s instead of 30 s, so the suite's ping settle stays short.
  return { NODE_ENV: 'development', PUBLIC_URL: publicUrl, ADMIN_TOKEN, POLICY_FILE: roomyPolicy(), JOB_TAKEOVER_MS: '6000', ...UNLIMITED_RATES, ...store };
}

/** Starts instances `a` and `b` on free ports, sharing `a`'s origin as `PUBLIC_URL`. */
export async function startPair(store: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string }): Promise<{ a: ServerProcess; b: ServerProcess; publicUrl: string }> {
  const [portA, portB] = [await freePort(), await freePort()];
  const publicUrl = `http://localhost:${portA}`;
  const env = serverEnv(publicUrl, store);
  const [a, b] = await Promise.all([startServer('a', portA, env), startServer('b', portB, env)]);
  return { a, b, publicUrl };
}

/** Fails with every broken invariant at once (counts and examples), after the figures are printed. */
export function expectNoProblems(scenario: string, ...all: Problems[]): void {
  const merged: Problems = {};
  for (const problems of all) for (const [invariant, examples] of Object.entries(problems)) (merged[invariant] ??= []).push(...examples);
  if (Object.keys(merged).length > 0) console.log(`[chaos] ${scenario}: FAILED ${JSON.stringify(summarize(merged))}`);
  expect(summarize(merged), scenario).toEqual({});
}

/** The problems of an `audit verify` run: none when it exits 0, else its output. */
export function auditProblems(result: { code: number; output: string }): Problems {
  return result.code === 0 ? {} : { 'audit verify does not hold': [`exit ${result.code}: ${result.output}`] };
}

/** The instances of `all` whose process is alive. */
export function aliveOf(all: () => ServerProcess[]): () => ServerProcess[] {
  return () => all().filter((server) => server.child.exitCode === null && server.child.signalCode === null);
}

/** Both instances serve one JWKS and one VAPID public key. */
export async function checkSharedKeys(http: ChaosHttp, a: ServerProcess, b: ServerProcess, user: ChaosUser): Promise<void> {
  const jwks = await Promise.all([a, b].map(async (server) => (await http.call(server, 'GET', '/jwks.json')).body));
  expect(jwks[0].keys.length).toBeGreaterThan(0);
  expect(jwks[1]).toEqual(jwks[0]);
  const vapid = await Promise.all([a, b].map(async (server) => (await http.call(server, 'GET', '/api/device/me', { headers: { cookie: user.cookie } })).body.vapid_public_key));
  expect(vapid[0]).toMatch(/^[A-Za-z0-9_-]{80,}$/);
  expect(vapid[1]).toBe(vapid[0]);
}

/** Prints the forbidden 5xx answers, counted by status, code, instance and route (the run's record of them). */
export function printForbidden(scenario: string, answers: Answer[]): void {
  const groups = new Map<string, number>();
  for (const example of forbidden5xx(answers)['a 5xx other than 503 temporarily_unavailable'] ?? []) groups.set(example, (groups.get(example) ?? 0) + 1);
  for (const [group, count] of groups) console.log(`[chaos] ${scenario}: ${count} × ${group}`);
}
