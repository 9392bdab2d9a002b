import { Redis } from 'ioredis';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { startNotificationReceiver, type NotificationReceiver } from '../support/notification-receiver.ts';
import { ChaosHttp, mapLimit, type ChaosClient, type ChaosUser } from './http-client.ts';
import { auditVerifyCli, checkPings, checkRedeemAnswers, checkRedemptionsSettled, figureLine, forbidden5xx, settle, type Problems, type SettledContext } from './invariants.ts';
import { kill9, killEverything, restartServer, type ServerProcess } from './processes.ts';
import { startSingleRedis } from './redis-topology.ts';
import { approveAgain, approvedRequests, decisionInDoubt, redeemStorm, uniquePayment, type Approved } from './workload.ts';
import { ADMIN_TOKEN, aliveOf, auditProblems, checkSharedKeys, expectNoProblems, NOTIFICATION_TOKEN, PAUSE_MS, PING_SETTLE_MS, printForbidden, SCALE, SETTLE_MS, startPair, TEST_TIMEOUT_MS } from './support.ts';

/** Chaos on one redis-server: SIGSTOP during a redeem storm, kill -9 of an instance amid ping approvals (see support.ts). */
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
