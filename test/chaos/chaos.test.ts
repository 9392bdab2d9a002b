import { Cluster, Redis } from 'ioredis';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testPolicy } from '../guarantees/policy-support.ts';
import { freePort, UNLIMITED_RATES } from '../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../support/notification-receiver.ts';
import { ChaosHttp, mapLimit, type Answer, type ChaosClient, type ChaosUser } from './http-client.ts';
import { auditVerifyCli, auditVerifyOn, checkPings, checkRedeemAnswers, checkRedemptionsSettled, figureLine, forbidden5xx, settle, SERVER_PREFIX, summarize, TENANT, type Problems, type SettledContext } from './invariants.ts';
import { kill9, killEverything, restartServer, startServer, type ServerProcess } from './processes.ts';
import { masterOf, startReplicatedCluster, startSingleRedis, waitForFailover, type ReplicatedCluster } from './redis-topology.ts';
import { approveAgain, approvedRequests, decisionInDoubt, redeemStorm, uniquePayment, type Approved } from './workload.ts';

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
 */

const SCALE = Math.max(1, Number(process.env.CHAOS_SCALE ?? 1));
const PAUSE_MS = Math.max(500, Number(process.env.CHAOS_PAUSE_MS ?? 3000));
/** Settle time for what follows a transition (audit event, outcome deadline). */
const SETTLE_MS = 15_000;
/**
 * Settle time for pings after a kill -9: a job the dead instance had read but not acknowledged is
 * taken over by another instance once it has been idle for `JOB_TAKEOVER_MS` (6 s here, 30 s by
 * default), and an approval whose instance died before it enqueued the ping is enqueued by the
 * outbox's reconciler about 5 s after the swap; so a ping may lawfully come that late.
 */
const PING_SETTLE_MS = 15_000;
const TEST_TIMEOUT_MS = 150_000 * SCALE;

const ADMIN_TOKEN = 'chaos-admin-token-0123456789abcdef';
const NOTIFICATION_TOKEN = 'cnt_chaos_8f14e45fceea167a5a36dedd4bea2543';

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
async function startPair(store: { REDIS_URL: string } | { REDIS_CLUSTER_NODES: string }): Promise<{ a: ServerProcess; b: ServerProcess; publicUrl: string }> {
  const [portA, portB] = [await freePort(), await freePort()];
  const publicUrl = `http://localhost:${portA}`;
  const env = serverEnv(publicUrl, store);
  const [a, b] = await Promise.all([startServer('a', portA, env), startServer('b', portB, env)]);
  return { a, b, publicUrl };
}

/** Fails with every broken invariant at once (counts and examples), after the figures are printed. */
function expectNoProblems(scenario: string, ...all: Problems[]): void {
  const merged: Problems = {};
  for (const problems of all) for (const [invariant, examples] of Object.entries(problems)) (merged[invariant] ??= []).push(...examples);
  if (Object.keys(merged).length > 0) console.log(`[chaos] ${scenario}: FAILED ${JSON.stringify(summarize(merged))}`);
  expect(summarize(merged), scenario).toEqual({});
}

function auditProblems(result: { code: number; output: string }): Problems {
  return result.code === 0 ? {} : { 'audit verify does not hold': [`exit ${result.code}: ${result.output}`] };
}

/** The instances of `all` whose process is alive. */
function aliveOf(all: () => ServerProcess[]): () => ServerProcess[] {
  return () => all().filter((server) => server.child.exitCode === null && server.child.signalCode === null);
}

async function checkSharedKeys(http: ChaosHttp, a: ServerProcess, b: ServerProcess, user: ChaosUser): Promise<void> {
  const jwks = await Promise.all([a, b].map(async (server) => (await http.call(server, 'GET', '/jwks.json')).body));
  expect(jwks[0].keys.length).toBeGreaterThan(0);
  expect(jwks[1]).toEqual(jwks[0]);
  const vapid = await Promise.all([a, b].map(async (server) => (await http.call(server, 'GET', '/api/device/me', { headers: { cookie: user.cookie } })).body.vapid_public_key));
  expect(vapid[0]).toMatch(/^[A-Za-z0-9_-]{80,}$/);
  expect(vapid[1]).toBe(vapid[0]);
}

describe('chaos: one Redis, two server processes', () => {
  let redis: Awaited<ReturnType<typeof startSingleRedis>>;
  let reader: Redis;
  let a: ServerProcess;
  let b: ServerProcess;
  let http: ChaosHttp;
  let client: ChaosClient;
  let user: ChaosUser;
  let receiver: NotificationReceiver | undefined;
  const instances = () => [a, b];

  beforeAll(async () => {
    redis = await startSingleRedis();
    const pair = await startPair({ REDIS_URL: redis.url });
    ({ a, b } = pair);
    http = new ChaosHttp(pair.publicUrl, ADMIN_TOKEN);
    reader = new Redis(redis.url, { maxRetriesPerRequest: 1 });
    client = await http.createClient(a, 'Chaos agent');
    user = await http.enroll(b, 'chaos_user');
  }, 60_000);

  afterAll(async () => {
    // SIGCONT first, in case a failed test left Redis stopped; then every process this file started.
    if (redis?.child.pid && redis.child.exitCode === null && redis.child.signalCode === null) process.kill(redis.child.pid, 'SIGCONT');
    reader?.disconnect();
    await receiver?.close();
    await killEverything();
    await redis?.remove();
  });

  it('shares one signing key and one VAPID key between the two instances (development keys kept in the store)', async () => {
    await checkSharedKeys(http, a, b, user);
  });

  it(
    `SIGSTOP of Redis for ${PAUSE_MS} ms during a redeem storm over both instances`,
    async () => {
      const scenario = `s1 redis SIGSTOP ${PAUSE_MS}ms redeem storm`;
      const from = http.answers.length;
      const approved = await approvedRequests(http, instances(), client, user, 60 * SCALE, `s1_${Date.now()}`);
      const stormStart = http.answers.length;
      const windowMs = PAUSE_MS + 3000;
      const storm = redeemStorm(http, instances, client, approved, { racers: 3, windowMs, burstFraction: 0.5, retryMs: 20_000 });
      // The pause starts in the burst a quarter into the window: tokens before it are redeemed, the burst's in flight, later ones queued.
      await storm.burstAnswered;
      process.kill(redis.child.pid!, 'SIGSTOP');
      try {
        await sleep(PAUSE_MS);
      } finally {
        process.kill(redis.child.pid!, 'SIGCONT');
      }
      const races = await storm.races;
      const answers = http.answers.slice(stormStart);

      const immediate = checkRedeemAnswers(races);
      const context: SettledContext = { http, instances, redis: reader };
      const ids = approved.map((approval) => approval.authReqId);
      const settled = await settle(() => checkRedemptionsSettled(context, ids, immediate.redemptionIds), SETTLE_MS);
      const audit = await auditVerifyCli(redis.url);
      console.log(figureLine(scenario, answers, { tokens: approved.length, racers_per_token: 3, settle_ms: settled.settleMs, audit_verify_exit: audit.code }));
      printForbidden(scenario, http.answers.slice(from));
      expectNoProblems(scenario, immediate.problems, settled.problems, forbidden5xx(http.answers.slice(from)), auditProblems(audit));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'kill -9 of an instance in the middle of a burst of approvals of a ping client, then its restart',
    async () => {
      const scenario = 's2 kill -9 instance during ping approvals';
      const from = http.answers.length;
      receiver = await startNotificationReceiver();
      const pingClient = await http.createClient(a, 'Chaos ping agent', { endpoint: receiver.url });
      const count = 40 * SCALE;
      const tag = `s2_${Date.now()}`;
      // Asked and opened on the phone ahead (B), so the burst is nothing but decisions.
      const prepared = await mapLimit(
        Array.from({ length: count }, (_, i) => i),
        8,
        async (i) => {
          const asked = await http.ask(instances()[i % 2]!, pingClient, user, uniquePayment(tag, i), NOTIFICATION_TOKEN);
          if (asked.status !== 200) throw new Error(`bc-authorize: ${asked.status} ${JSON.stringify(asked.body)}`);
          const view = await http.view(b, user, asked.body.auth_req_id);
          return { authReqId: asked.body.auth_req_id as string, response: await http.signApproval(user, view) };
        },
      );
      const burstStart = http.answers.length;
      const toA = prepared.filter((_, i) => i % 2 === 0).length;
      let answeredOnA = 0;
      let killed: Promise<void> | undefined;
      // kill -9 once a third of A's decisions are answered: the other two thirds are in A's hands.
      const decisions = await Promise.all(
        prepared.map(async ({ authReqId, response }, i) => {
          const target = i % 2 === 0 ? a : b;
          const reply = await http.postDecision(target, user, authReqId, response);
          if (target === a && ++answeredOnA >= Math.ceil(toA / 3)) killed ??= kill9(a.child);
          return { authReqId, reply };
        }),
      );
      await killed;
      const alive = aliveOf(instances);
      const deadline = Date.now() + 20_000;
      const doubtful = decisions.filter(({ reply }) => decisionInDoubt(reply));
      const retried = await Promise.all(doubtful.map(async ({ authReqId }) => ({ authReqId, ...(await approveAgain(http, alive, user, authReqId, deadline)) })));
      a = await restartServer(a);

      const context: SettledContext = { http, instances, redis: reader };
      const ids = prepared.map((request) => request.authReqId);
      const pinged = () => new Set(receiver!.received.map((notification) => notification.json?.auth_req_id as string));
      const pingedBeforeSettle = pinged();
      const pings = await settle(() => checkPings(context, ids, pinged), PING_SETTLE_MS);
      // Where the unpinged ones were decided: on the killed instance (answered, or its answer lost), or after it.
      const unpinged = new Set(pings.problems['approved ping request never pinged'] ?? []);
      const unpingedFigures = {
        unpinged_answered_200_by_killed: decisions.filter(({ authReqId, reply }, i) => unpinged.has(authReqId) && i % 2 === 0 && reply.status === 200).length,
        unpinged_answer_lost_on_killed: decisions.filter(({ authReqId, reply }, i) => unpinged.has(authReqId) && i % 2 === 0 && reply.status === 0).length,
        unpinged_approved_by_retry_on_survivor: retried.filter(({ authReqId, decidedHere }) => unpinged.has(authReqId) && decidedHere).length,
        pinged_during_settle: ids.filter((id) => pinged().has(id) && !pingedBeforeSettle.has(id)).length,
      };

      // Then the agent takes each approval and redeems it: the redemption checks hold here too.
      const approved: Approved[] = [];
      await mapLimit(ids, 8, async (authReqId, i) => {
        const token = await http.token(instances()[i % 2]!, pingClient, authReqId);
        if (token.status === 200) approved.push({ authReqId, accessToken: token.body.access_token, details: uniquePayment(tag, ids.indexOf(authReqId)) });
      });
      const races = await redeemStorm(http, instances, pingClient, approved, { racers: 2, windowMs: 1000, burstFraction: 0, retryMs: 10_000 }).races;
      const immediate = checkRedeemAnswers(races);
      const settled = await settle(
        () =>
          checkRedemptionsSettled(
            context,
            approved.map((approval) => approval.authReqId),
            immediate.redemptionIds,
          ),
        SETTLE_MS,
      );
      const audit = await auditVerifyCli(redis.url);
      const burst = http.answers.slice(burstStart);
      console.log(
        figureLine(scenario, burst, {
          requests: count,
          decisions_on_killed_instance: toA,
          decisions_in_doubt: doubtful.length,
          decisions_lost: burst.filter((answer) => answer.route === 'POST /api/device/requests/:id/decision' && answer.status === 0).length,
          approved_by_retry: retried.filter(({ decidedHere }) => decidedHere).length,
          lost_decision_had_landed: retried.filter(({ decidedHere, reply }) => !decidedHere && reply.body?.request?.state === 'approved').length,
          pinged: ids.filter((id) => pinged().has(id)).length,
          ping_settle_ms: pings.settleMs,
          ...unpingedFigures,
          tokens_redeemed: approved.length,
          settle_ms: settled.settleMs,
          audit_verify_exit: audit.code,
        }),
      );
      printForbidden(scenario, http.answers.slice(from));
      const tokenProblems: Problems = approved.length === count ? {} : { 'approved ping request without a token at /token': [`${count - approved.length} of ${count}`] };
      expectNoProblems(scenario, pings.problems, tokenProblems, immediate.problems, settled.problems, forbidden5xx(http.answers.slice(from)), auditProblems(audit));
    },
    TEST_TIMEOUT_MS,
  );
});

describe('chaos: Redis Cluster of 3 masters and 3 replicas, two server processes', () => {
  let cluster: ReplicatedCluster;
  let reader: Cluster;
  let a: ServerProcess;
  let b: ServerProcess;
  let http: ChaosHttp;
  let client: ChaosClient;
  let user: ChaosUser;
  const instances = () => [a, b];

  beforeAll(async () => {
    cluster = await startReplicatedCluster();
    const pair = await startPair({ REDIS_CLUSTER_NODES: cluster.seeds });
    ({ a, b } = pair);
    http = new ChaosHttp(pair.publicUrl, ADMIN_TOKEN);
    reader = new Cluster(
      cluster.nodes.map((node) => ({ host: '127.0.0.1', port: node.port })),
      { redisOptions: { maxRetriesPerRequest: 1 } },
    );
    client = await http.createClient(a, 'Chaos agent');
    user = await http.enroll(b, 'chaos_user');
  }, 60_000);

  afterAll(async () => {
    reader?.disconnect();
    await killEverything();
    await Promise.all((cluster?.nodes ?? []).map((node) => rm(node.dir, { recursive: true, force: true })));
  });

  it('shares one signing key and one VAPID key between the two instances', async () => {
    await checkSharedKeys(http, a, b, user);
  });

  it(
    'kill -9 of the master holding the audit chain (it has a replica) during a redeem storm',
    async () => {
      const scenario = 's3 kill -9 cluster master during redeem storm';
      const from = http.answers.length;
      const approved = await approvedRequests(http, instances(), client, user, 60 * SCALE, `s3_${Date.now()}`);
      // The master of the tenant's audit chain: every redemption's audit event goes there.
      const victim = await masterOf(cluster.nodes[0]!.port, `${SERVER_PREFIX}auditlog:{${TENANT}}`);
      const victimProcess = cluster.nodes.find((node) => node.port === victim.port)!;
      const survivors = cluster.nodes.filter((node) => node !== victimProcess).map((node) => node.port);
      const stormStart = http.answers.length;
      // Long enough that fresh calls still arrive after the failover (2–5 s here): a stale slot map shows then.
      const windowMs = 8000 * Math.min(SCALE, 2);
      const storm = redeemStorm(http, instances, client, approved, { racers: 3, windowMs, burstFraction: 0.5, retryMs: 25_000 });
      await storm.burstAnswered;
      await kill9(victimProcess.child);
      const failoverMs = await waitForFailover(survivors, victim);
      const races = await storm.races;
      const answers = http.answers.slice(stormStart);

      const immediate = checkRedeemAnswers(races);
      const context: SettledContext = { http, instances, redis: reader };
      const ids = approved.map((approval) => approval.authReqId);
      const settled = await settle(() => checkRedemptionsSettled(context, ids, immediate.redemptionIds), SETTLE_MS);
      const audit = await auditVerifyOn(reader);
      console.log(figureLine(scenario, answers, { tokens: approved.length, racers_per_token: 3, failover_ms: failoverMs, settle_ms: settled.settleMs, audit_verify_exit: audit.code }));
      printForbidden(scenario, http.answers.slice(from));
      expectNoProblems(scenario, immediate.problems, settled.problems, forbidden5xx(http.answers.slice(from)), auditProblems(audit));
    },
    TEST_TIMEOUT_MS,
  );
});

/** Prints the forbidden 5xx answers, counted by status, code, instance and route (the run's record of them). */
function printForbidden(scenario: string, answers: Answer[]): void {
  const groups = new Map<string, number>();
  for (const example of forbidden5xx(answers)['a 5xx other than 503 temporarily_unavailable'] ?? []) groups.set(example, (groups.get(example) ?? 0) + 1);
  for (const [group, count] of groups) console.log(`[chaos] ${scenario}: ${count} × ${group}`);
}
