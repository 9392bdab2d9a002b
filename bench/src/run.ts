/**
 * `pnpm bench`: Countersign beside node-oidc-provider, on one machine, in one run. See
 * docs/performance.md for what is measured and how to read it.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext } from './context.ts';
import { writeBenchPolicy } from './countersign/bench-policy.ts';
import { runCountersign } from './countersign/run-countersign.ts';
import { setupActors, startCountersign } from './countersign/server.ts';
import { serverStore } from './countersign/steps.ts';
import { REPO_ROOT } from './infra/child.ts';
import { withDeadline } from './support/json-call.ts';
import { startPingReceiver } from './infra/ping-receiver.ts';
import { startPushReceiver } from './infra/push-receiver.ts';
import { startRedis } from './infra/redis.ts';
import { measureAuditChain } from './measure/audit-chain.ts';
import { measureTenantSpread } from './measure/tenant-spread.ts';
import { loadAverage } from './infra/machine.ts';
import { measureMemory } from './measure/memory.ts';
import { measurePushSend } from './measure/push-send.ts';
import { measureSweep } from './measure/sweep.ts';
import { measureWindowGrowth } from './measure/window-growth.ts';
import { peerSteps, startPeer } from './peer/steps.ts';
import { runProfiles } from './profile/run-profiles.ts';
import { buildReport, codeState, writeReport } from './report/report.ts';

/** Longest any one in-process measurement may take before the run fails naming it (they take seconds). */
const PHASE_DEADLINE_MS = 180_000;

/** `work`, or an error naming the phase once it has run for {@link PHASE_DEADLINE_MS}. */
const phase = <T>(name: string, work: Promise<T>): Promise<T> => withDeadline(name, PHASE_DEADLINE_MS, work);

async function main(): Promise<void> {
  const startedAt = new Date();
  const t0 = performance.now();
  const workDir = mkdtempSync(join(tmpdir(), 'countersign-bench-'));
  const resultsDir = join(REPO_ROOT, 'bench', 'results');
  mkdirSync(resultsDir, { recursive: true });
  const log = (message: string) => console.log(`[${((performance.now() - t0) / 1000).toFixed(0).padStart(3)} s] ${message}`);
  const cleanups: (() => Promise<void>)[] = [];
  const cleanup = async () => {
    for (const step of cleanups.reverse()) await step().catch(() => undefined);
  };
  // Ctrl-C stops the run; if cleaning up hangs, a second Ctrl-C (or 20 s) exits anyway.
  process.once('SIGINT', () => {
    process.once('SIGINT', () => process.exit(130));
    setTimeout(() => process.exit(130), 20_000).unref();
    void cleanup().then(() => process.exit(130));
  });
  let succeeded = false;

  try {
    log(`work directory ${workDir}`);
    const redis = await startRedis();
    cleanups.push(() => redis.stop());
    const ctx: BenchContext = { workDir, redis, log, own: [] };
    const load = loadAverage();
    if (load > 0.5) log(`warning: the machine is not idle (load average ${load}); other processes' share of the CPU is reported per run`);
    const receiver = await startPushReceiver(workDir);
    cleanups.push(() => receiver.close());
    const pings = await startPingReceiver();
    cleanups.push(() => pings.close());
    const policyFile = writeBenchPolicy(workDir, 'short');
    const shippedWindows = writeBenchPolicy(workDir, 'shipped');

    const codeAtStart = codeState();
    // The peer on Redis gets a Redis of its own, so that Countersign's Redis figures stay its own.
    const peerRedisServer = await startRedis();
    cleanups.push(() => peerRedisServer.stop());
    ctx.peerRedis = peerRedisServer;
    log(`starting Countersign (${codeAtStart.commit}) and the peer, in memory and on Redis`);
    const [started, startedPeer, startedPeerRedis] = await Promise.allSettled([startCountersign(ctx, receiver, policyFile), startPeer(ctx), startPeer(ctx, peerRedisServer)]);
    for (const one of [started, startedPeer, startedPeerRedis]) if (one.status === 'fulfilled') cleanups.push(() => one.value.child.stop());
    for (const one of [started, startedPeer, startedPeerRedis]) if (one.status === 'rejected') throw one.reason;
    const server = (started as PromiseFulfilledResult<Awaited<ReturnType<typeof startCountersign>>>).value;
    const peer = (startedPeer as PromiseFulfilledResult<Awaited<ReturnType<typeof startPeer>>>).value;
    const peerRedis = (startedPeerRedis as PromiseFulfilledResult<Awaited<ReturnType<typeof startPeer>>>).value;
    ctx.own.push(server.child, peer.child, peerRedis.child);
    const store = await serverStore(ctx);
    cleanups.push(() => store.close());
    const actors = await setupActors(server, receiver, pings);
    log(`set up: 1 client and 1 ping client, ${actors.plain.length} users, ${actors.push.length} users with a push subscription`);

    log('Countersign, and node-oidc-provider (the peer, in memory then on Redis) after each step it shares');
    const countersign = await runCountersign(ctx, server, actors, { push: receiver, pings }, store, peerSteps(ctx, peer), peerSteps(ctx, peerRedis));
    const peerRows = countersign.peerRows;

    log('Redis memory per pending request');
    // On a Redis of its own, so that nothing else (the server's sweeper, its leases) moves used_memory.
    const memoryRedis = await startRedis();
    const memory = await phase('Redis memory per pending request', measureMemory(memoryRedis.admin, memoryRedis.url, shippedWindows)).finally(() => memoryRedis.stop());
    log(`  ${memory.bytesPerPendingRequest} bytes per pending request`);
    log('expiry sweep cost against live requests');
    const sweep = await phase('the expiry sweep', measureSweep(redis.admin, redis.url, policyFile));
    for (const point of sweep) log(`  ${point.live} live, ${point.due} due: ${point.sweepMs} ms (nothing due: ${point.emptySweepMs} ms)`);
    log('velocity window growth');
    const windows = await phase('velocity window growth', measureWindowGrowth(redis.admin, redis.url, shippedWindows));
    for (const point of windows ?? []) log(`  ${point.entries} entries: ${point.meanMs} ms per bc-authorize, redis ${point.redisMicrosPerRequest} µs`);
    log('audit chain');
    const auditChain = await phase('the audit chain', measureAuditChain(redis.url, policyFile));
    log(`  ${auditChain.oneTenantPerSecond}/s in one tenant, ${auditChain.eightTenantsPerSecond}/s over 8 tenants, plain appends ${auditChain.plainAppendsPerSecond}/s`);
    const tenantSpread = await phase('bc-authorize over tenants', measureTenantSpread(redis.url, policyFile));
    log(`  bc-authorize in-process: ${tenantSpread.oneTenantPerSecond}/s in one tenant, ${tenantSpread.eightTenantsPerSecond}/s over 8 tenants`);
    log('one Web Push send');
    const pushSend = await phase('one Web Push send', measurePushSend(receiver));
    log(`  ${pushSend.meanMs} ms, ${pushSend.cpuMicrosPerSend} µs CPU per send`);

    const report = buildReport({ startedAt, countersign: countersign.rows, peer: peerRows, peerRedis: countersign.peerRedisRows, memory, sweep, windows, auditChain, tenantSpread, pushSend, redisVersion: redis.version, code: { atStart: codeAtStart, atEnd: codeState() } });
    log('profiling the scenarios that miss a target');
    report.profiles = await runProfiles(ctx, server, actors, store, countersign.leftover, report, join(resultsDir, 'profiles'));
    report.meta.finishedAt = new Date().toISOString();
    const files = writeReport(report, resultsDir);
    console.log(`\n${files.table}\n`);
    log(`results: ${files.latest}; table written into ${files.docs}`);
    succeeded = true;
  } finally {
    await cleanup();
    // Keep the logs of a failed run (the servers' output is in countersign.log and peer.log).
    if (succeeded) rmSync(workDir, { recursive: true, force: true });
    else console.error(`logs kept in ${workDir}`);
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exit(1);
});
