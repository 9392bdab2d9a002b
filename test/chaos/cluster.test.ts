import { Cluster } from 'ioredis';
import { rm } from 'node:fs/promises';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { ChaosHttp, type ChaosClient, type ChaosUser } from './http-client.ts';
import { auditVerifyOn, checkRedeemAnswers, checkRedemptionsSettled, figureLine, forbidden5xx, settle, SERVER_PREFIX, TENANT, type SettledContext } from './invariants.ts';
import { kill9, killEverything, type ServerProcess } from './processes.ts';
import { masterOf, startReplicatedCluster, waitForFailover, type ReplicatedCluster } from './redis-topology.ts';
import { approvedRequests, redeemStorm } from './workload.ts';
import { ADMIN_TOKEN, auditProblems, checkSharedKeys, expectNoProblems, printForbidden, SCALE, SETTLE_MS, startPair, TEST_TIMEOUT_MS } from './support.ts';

/** Chaos on a Redis Cluster: kill -9 of the master holding the tenant's audit chain during a redeem storm (see support.ts). */
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
