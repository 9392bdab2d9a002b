/**
 * `pnpm bench:commands`: the Redis commands one `POST /bc-authorize` without a push costs, by
 * command (INFO commandstats deltas, the commands Lua scripts run included, background work
 * included), and, from MONITOR of a few requests, which key (code path) and which script issues
 * each. In-process (the server's code through `createApp`), on a Redis of its own, with the load
 * runs' policy, in a few seconds. `BENCH_COMMANDS_REQUESTS` (400) and `BENCH_COMMANDS_PARALLEL`
 * (8) set how many requests and how many at once; see docs/performance.md.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backchannelBodies } from './countersign/actions.ts';
import { mapLimit } from './countersign/api.ts';
import { writeBenchPolicy } from './countersign/bench-policy.ts';
import { info, redisCpuMicros, startRedis } from './infra/redis.ts';
import { monitorRequests } from './measure/monitor.ts';
import { startTwin } from './measure/in-process.ts';

const REQUESTS = Number(process.env.BENCH_COMMANDS_REQUESTS || 400);
const PARALLEL = Number(process.env.BENCH_COMMANDS_PARALLEL || 8);
const USERS = 400;

const workDir = mkdtempSync(join(tmpdir(), 'countersign-bench-commands-'));
const redis = await startRedis();
const twin = await startTwin(redis.url, 'cs:', { policyFile: writeBenchPolicy(workDir, 'short') });

async function commandCalls(): Promise<Record<string, number>> {
  const calls: Record<string, number> = {};
  for (const [name, value] of Object.entries(await info(redis.admin, 'commandstats'))) {
    const found = /calls=(\d+)/.exec(value);
    if (found) calls[name.replace(/^cmdstat_/, '')] = Number(found[1]);
  }
  return calls;
}

try {
  const [client] = await twin.createClients(1);
  const authorization = client!.authorization;
  const users = Array.from({ length: USERS }, (_, i) => `cmd-user-${i}`);
  await twin.enrollUsers(users, false);
  const ask = async (body: string) => {
    const answer = await twin.call('POST', '/bc-authorize', { form: body, headers: { authorization } });
    if (answer.status !== 200) throw new Error(`commands: /bc-authorize answered ${answer.status} ${JSON.stringify(answer.body)}`);
  };
  // A warm-up: scripts cached, the client's and users' first reads done, as in the load runs.
  const warm = backchannelBodies(users, USERS, 'warm').items;
  await mapLimit(warm, PARALLEL, (item) => ask(item.body!));
  await twin.deps.background.drain();

  const { items } = backchannelBodies(users, REQUESTS, 'cmd');
  const [before, cpu0] = await Promise.all([commandCalls(), redisCpuMicros(redis.admin)]);
  await mapLimit(items, PARALLEL, (item) => ask(item.body!));
  await twin.deps.background.drain();
  const [after, cpu1] = await Promise.all([commandCalls(), redisCpuMicros(redis.admin)]);
  const rows = Object.entries(after)
    .map(([name, calls]) => [name, (calls - (before[name] ?? 0) - (name === 'info' ? 2 : 0)) / REQUESTS] as const)
    .filter(([, perRequest]) => perRequest > 0)
    .sort((a, b) => b[1] - a[1]);
  const total = rows.reduce((sum, [, n]) => sum + n, 0);
  console.log(`POST /bc-authorize (no push), ${REQUESTS} requests, ${PARALLEL} at once: ${total.toFixed(2)} Redis commands per request, Redis CPU ${Math.round((cpu1 - cpu0) / REQUESTS)} µs per request`);
  for (const [name, perRequest] of rows) console.log(`  ${name.padEnd(20)} ${perRequest.toFixed(2)}`);

  // One request at a time under MONITOR: which key and script each command comes from.
  const watched = backchannelBodies(users, 4, 'monitor').items;
  const lines = await monitorRequests(redis.port, 'cs:', async () => {
    for (const item of watched) await ask(item.body!);
    await twin.deps.background.drain();
  });
  console.log(`\nBy key and script, per request (MONITOR of ${watched.length} requests one at a time; "in <sha>" is a command a script ran):`);
  for (const [line, count] of lines) console.log(`  ${(count / watched.length).toFixed(2).padStart(5)}  ${line}`);
} finally {
  await twin.close();
  await redis.stop();
  rmSync(workDir, { recursive: true, force: true });
}
