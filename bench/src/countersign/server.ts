import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { benchConfig, benchRateLimits } from '../config.ts';
import type { BenchContext } from '../context.ts';
import { REPO_ROOT, startNodeChild, waitForHttp, type NodeChild } from '../infra/child.ts';
import { freePort } from '../infra/free-port.ts';
import type { PingReceiver } from '../infra/ping-receiver.ts';
import type { PushReceiver } from '../infra/push-receiver.ts';
import { countersignApi, mapLimit, type BenchClient, type BenchUser, type CountersignApi } from './api.ts';

/** The Countersign server under test, as a child process. */
export interface CountersignServer {
  child: NodeChild;
  api: CountersignApi;
  target: string;
  publicUrl: string;
  adminToken: string;
  logFile: string;
}

/**
 * Starts `tsx server/src/main.ts` (as `node --import tsx`, plus the benchmark's IPC preload) on a
 * free port against the benchmark's Redis, in development mode (the mode `pnpm start` runs in).
 * `NODE_EXTRA_CA_CERTS` makes Node's default HTTPS agent, which web-push uses, trust the push
 * receiver's throwaway CA: no change to the server is needed to push to it.
 * `POLL_INTERVAL=1`: a pool of N pending requests then takes N legitimate polls a second (a poll
 * does the same work whatever the interval). The rate limits are raised out of reach unless the
 * benchmark's environment sets them (`benchRateLimits`).
 */
export async function startCountersign(ctx: BenchContext, receiver: PushReceiver, policyFile: string | null): Promise<CountersignServer> {
  const port = await freePort();
  const publicUrl = `http://localhost:${port}`;
  const adminToken = `bench-admin-${randomBytes(18).toString('base64url')}`;
  const logFile = join(ctx.workDir, 'countersign.log');
  const env: Record<string, string> = {
    PORT: String(port),
    PUBLIC_URL: publicUrl,
    REDIS_URL: ctx.redis.url,
    ADMIN_TOKEN: adminToken,
    NODE_ENV: 'development',
    NODE_EXTRA_CA_CERTS: receiver.caFile,
    POLL_INTERVAL: '1',
    ...benchRateLimits(),
    ...(policyFile ? { POLICY_FILE: policyFile } : {}),
  };
  // BENCH_CPU_PROF=1: also run the server under `node --cpu-prof`, one profile of the whole run,
  // written to bench/results/profiles when the server exits (the per-scenario profiles are taken anyway).
  const cpuProf = process.env.BENCH_CPU_PROF === '1' ? ['--cpu-prof', `--cpu-prof-dir=${join(REPO_ROOT, 'bench', 'results', 'profiles')}`] : [];
  const child = startNodeChild('server/src/main.ts', env, logFile, cpuProf);
  // main.ts listens on `localhost`, which is 127.0.0.1 here; requests go to the address directly.
  const target = `http://127.0.0.1:${port}`;
  await waitForHttp(`${target}/healthz`, child, logFile).catch(async (error: unknown) => {
    await child.stop();
    throw error;
  });
  return { child, api: countersignApi(target, publicUrl, adminToken), target, publicUrl, adminToken, logFile };
}

/**
 * Who takes part: one agent, users without push, and users whose device has a push subscription;
 * and a second agent in ping mode, whose notification endpoint is the benchmark's ping receiver.
 */
export interface Actors {
  client: BenchClient;
  pingClient: BenchClient;
  plain: BenchUser[];
  push: BenchUser[];
}

/**
 * Registers the agent and enrolls every user through the admin and device APIs with a software
 * passkey. The passkeys keep their signature counter at 0 (as synced passkeys do), so assertions
 * made ahead of time may arrive in any order. Push users subscribe at the receiver, one endpoint each.
 */
export async function setupActors(server: CountersignServer, receiver: PushReceiver, ping: PingReceiver): Promise<Actors> {
  const client = await server.api.createClient('Bench agent');
  const pingMode = { token_delivery_mode: 'ping', backchannel_client_notification_endpoint: ping.endpoint };
  const pingClient = { ...(await server.api.createClient('Bench ping agent', pingMode)), notification_token: ping.token };
  const plainSubs = Array.from({ length: benchConfig.plainUsers }, (_, i) => `bench-user-${String(i).padStart(4, '0')}`);
  const pushSubs = Array.from({ length: benchConfig.pushUsers }, (_, i) => `bench-push-${String(i).padStart(4, '0')}`);
  const plain = await mapLimit(plainSubs, 8, (sub) => server.api.enrollUser(sub, 'fixed'));
  const push = await mapLimit(pushSubs, 8, async (sub, i) => {
    const user = await server.api.enrollUser(sub, 'fixed');
    await server.api.subscribePush(user, receiver.endpoint(`/push/${i}`));
    return user;
  });
  return { client, pingClient, plain, push };
}
