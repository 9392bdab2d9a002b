import { benchConfig } from './config.ts';
import { waitIdle, type NodeChild, type Stalls } from './infra/child.ts';
import { coreCount, machineBusyMicros, waitCalm } from './infra/machine.ts';
import { info, redisCpuMicros, slowCommands, type BenchRedis, type SlowCommand } from './infra/redis.ts';
import { runLoad } from './load/run-load.ts';
import type { AnswerStamp, LoadResult, LoadSpec } from './load/spec.ts';
import type { Delivery } from './measure/delivery.ts';

/** One measured run, as reported: the load's result plus what the server and Redis spent on it. */
export interface Measured extends Omit<LoadResult, 'captured' | 'answers'> {
  /** Row label, e.g. `POST /redeem`. */
  label: string;
  /** `peer-redis`: the peer with its state in a Redis of its own (`peer/redis-adapter.ts`). */
  system: 'countersign' | 'peer' | 'peer-redis';
  /** Server CPU per answered request, microseconds (warm-up and any background work included). */
  serverCpuMicrosPerRequest: number;
  /** Redis CPU per answered request, microseconds (Countersign's, and the Redis peer's). */
  redisCpuMicrosPerRequest?: number;
  /** Redis commands per answered request, and the commands behind them (Countersign only). */
  redisCommandsPerRequest?: number;
  redisCommands?: Record<string, number>;
  /** Reads Redis made from its clients' sockets per request: the round trips (pipelines count once). */
  redisRoundTripsPerRequest?: number;
  /** Commands its Redis took at least 2 ms over during the run, slowest first (at most 10). */
  redisSlowCommands?: SlowCommand[];
  /** What held up the server's event loop during the run (warm-up included): delay and GC pauses. */
  serverStalls?: Stalls;
  /** Server CPU as a share of one core over the run. */
  serverCpuShare: number;
  /**
   * Share of the machine's CPU (all cores) that processes outside the benchmark used during the
   * run: the runs share a machine, and a busy neighbour lowers every figure.
   */
  foreignCpuShare: number | null;
  /** What the requests set off, timed from their answers to where it arrived (a push, a ping). */
  delivery?: Delivery;
  notes: string[];
}

/** What every phase needs. */
export interface BenchContext {
  workDir: string;
  redis: BenchRedis;
  /** The Redis of the peer on Redis, when it runs. */
  peerRedis?: BenchRedis;
  log(message: string): void;
  /** The benchmark's own Node processes (server, peer), whose CPU is not a neighbour's. */
  own: NodeChild[];
}

/** Calls and their commands from INFO commandstats. */
async function commandStats(redis: BenchRedis): Promise<{ total: number; reads: number; byCommand: Record<string, number> }> {
  const [stats, commands] = await Promise.all([info(redis.admin, 'stats'), info(redis.admin, 'commandstats')]);
  const byCommand: Record<string, number> = {};
  for (const [name, value] of Object.entries(commands)) {
    const calls = /calls=(\d+)/.exec(value);
    if (calls) byCommand[name.replace(/^cmdstat_/, '')] = Number(calls[1]);
  }
  return { total: Number(stats.total_commands_processed ?? 0), reads: Number(stats.total_reads_processed ?? 0), byCommand };
}

/** CPU of everything the benchmark runs: its children, Redis and this process, microseconds. */
async function ownCpu(ctx: BenchContext): Promise<number> {
  const children = await Promise.all(ctx.own.map((child) => child.cpu().catch(() => 0)));
  const self = process.cpuUsage();
  const redis = await Promise.all([ctx.redis, ...(ctx.peerRedis ? [ctx.peerRedis] : [])].map((one) => redisCpuMicros(one.admin)));
  return children.reduce((a, b) => a + b, 0) + redis.reduce((a, b) => a + b, 0) + self.user + self.system;
}

/**
 * Runs a load against `server` and measures the server's CPU (and Redis's) around it.
 * `settle` runs after the load and before the CPU is read again: background work a request
 * started (a push) is charged to the run that started it.
 */
export async function measure(
  ctx: BenchContext,
  server: NodeChild,
  system: Measured['system'],
  label: string,
  spec: Omit<LoadSpec, 'resultFile' | 'connections' | 'warmupSeconds' | 'durationSeconds'> & Partial<Pick<LoadSpec, 'connections' | 'warmupSeconds' | 'durationSeconds'>>,
  settle?: (result: LoadResult) => Promise<string | void>,
): Promise<{ measured: Measured; captured: string[]; answers: AnswerStamp[] }> {
  const full = {
    connections: benchConfig.connections,
    warmupSeconds: benchConfig.warmupSeconds,
    durationSeconds: benchConfig.durationSeconds,
    ...spec,
  };
  await waitIdle(server);
  const calmWait = await waitCalm(5000);
  ctx.log(`  ${system} ${label} (${full.mode === 'paced' ? `${full.rate}/s` : `${full.connections} connections`}, ${full.warmupSeconds}+${full.durationSeconds} s)`);
  // The Redis this system uses, if any: its CPU and commands are charged to the run.
  const redis = system === 'countersign' ? ctx.redis : system === 'peer-redis' ? (ctx.peerRedis ?? null) : null;
  const withRedis = redis !== null;
  const [cpu0, redis0, stats0, own0] = await Promise.all([server.cpu(), redis ? redisCpuMicros(redis.admin) : 0, redis ? commandStats(redis) : null, ownCpu(ctx)]);
  await server.stalls();
  if (redis) await slowCommands(redis.admin);
  const busy0 = machineBusyMicros();
  const started = performance.now();
  const result = await runLoad(full, ctx.workDir);
  const notes: string[] = [];
  const settled = settle ? await settle(result) : undefined;
  if (settled) notes.push(settled);
  const stalls = await server.stalls();
  const slow = redis ? await slowCommands(redis.admin) : [];
  const busy1 = machineBusyMicros();
  const [cpu1, redis1, stats1, own1] = await Promise.all([server.cpu(), redis ? redisCpuMicros(redis.admin) : 0, redis ? commandStats(redis) : null, ownCpu(ctx)]);
  const wall = (performance.now() - started) / 1000;
  const { captured, answers, ...rest } = result;
  const answered = Math.max(1, result.totalResponses);
  const perRequest = (value: number) => Math.round((value / answered) * 100) / 100;
  let commands: Record<string, number> | undefined;
  if (stats0 && stats1) {
    commands = {};
    for (const [name, calls] of Object.entries(stats1.byCommand)) {
      const added = calls - (stats0.byCommand[name] ?? 0);
      if (added > 0 && name !== 'info') commands[name] = perRequest(added);
    }
  }
  // The load process's CPU is known from its own report; the rest of ours from the samples above.
  const loadCpu = result.loadCpuShare * result.wallSeconds * 1e6;
  const foreign = busy0 !== null && busy1 !== null ? Math.max(0, busy1 - busy0 - (own1 - own0) - loadCpu) / (coreCount * wall * 1e6) : null;
  const measured: Measured = {
    ...rest,
    label,
    system,
    serverCpuMicrosPerRequest: Math.round((cpu1 - cpu0) / answered),
    ...(withRedis
      ? {
          redisCpuMicrosPerRequest: Math.round((redis1 - redis0) / answered),
          redisCommandsPerRequest: perRequest(stats1!.total - stats0!.total),
          redisRoundTripsPerRequest: perRequest(stats1!.reads - stats0!.reads),
          redisCommands: commands,
        }
      : {}),
    serverStalls: stalls,
    ...(redis ? { redisSlowCommands: slow.slice(0, 10) } : {}),
    serverCpuShare: Math.round(((cpu1 - cpu0) / 1e6 / wall) * 100) / 100,
    foreignCpuShare: foreign === null ? null : Math.round(foreign * 100) / 100,
    notes,
  };
  if (foreign !== null && foreign > 0.1) notes.push(`other processes on the machine used ${Math.round(foreign * 100)}% of its CPU during this run${calmWait >= 5000 ? ' (it was busy before the run too)' : ''}`);
  // A pause longer than the row's p99 shows in it: say where the server's time went.
  if (stalls.loop.maxMs >= Math.max(20, result.latency.p99 / 2)) {
    notes.push(`the server's event loop stalled for up to ${stalls.loop.maxMs} ms (p99 delay ${stalls.loop.p99Ms} ms; ${stalls.gc.count} GCs, ${stalls.gc.major} major, longest ${stalls.gc.maxMs} ms, ${stalls.gc.totalMs} ms in all)`);
  }
  if (slow.length > 0) {
    const worst = slow.slice(0, 3).map((one) => `${one.command} ${(one.micros / 1000).toFixed(1)} ms`);
    notes.push(`Redis took over 2 ms on ${slow.length} command${slow.length === 1 ? '' : 's'} (slowest: ${worst.join(', ')})`);
  }
  if (result.exhausted) notes.push(`its ${result.name} pool ran out after ${result.windowSeconds} s of measurement`);
  const unexpected = Object.entries(result.unexpected);
  if (unexpected.length) notes.push(`unexpected answers: ${unexpected.map(([label, n]) => `${n}× ${label}`).join(', ')}`);
  if (result.socketErrors) notes.push(`${result.socketErrors} socket errors`);
  ctx.log(
    `    ${result.rps} req/s ok, p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms; server ${measured.serverCpuMicrosPerRequest} µs/req` +
      (withRedis ? `, redis ${measured.redisCpuMicrosPerRequest} µs/req, ${measured.redisCommandsPerRequest} commands in ${measured.redisRoundTripsPerRequest} round trips/req` : '') +
      `, load process ${Math.round(result.loadCpuShare * 100)}% of a core${notes.length ? `; ${notes.join('; ')}` : ''}`,
  );
  return { measured, captured, answers: answers ?? [] };
}
