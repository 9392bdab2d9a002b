import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from './free-port.ts';

/** A private, throwaway redis-server: no RDB snapshots, no AOF, loopback only. */
export interface BenchRedis {
  url: string;
  port: number;
  pid: number;
  /** A plain ioredis connection for INFO and MEMORY commands (not the server's). */
  admin: Redis;
  version: string;
  stop(): Promise<void>;
}

/**
 * Starts `redis-server` in the foreground on a free port and waits for "Ready to accept
 * connections" (the pattern of test/setup, see STACK.md "Redis in tests").
 * @throws Error when redis-server is not installed or does not become ready in 10 s.
 */
export async function startRedis(): Promise<BenchRedis> {
  const port = await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ready = new Promise<void>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${log}`)), 10_000);
    const onData = (chunk: Buffer) => {
      log += chunk.toString();
      if (log.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`cannot start redis-server (apt-get install -y redis-server): ${error.message}`));
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`redis-server exited with ${code}:\n${log}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    // A redis-server that never became ready must not outlive the benchmark.
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  }
  // Past the readiness line nothing needs reading; keep the pipes drained.
  child.stdout!.resume();
  child.stderr!.resume();
  const admin = new Redis({ port, host: '127.0.0.1', lazyConnect: false });
  const server = await info(admin, 'server');
  // Commands slower than SLOW_COMMAND_MICROS go to the slow log, which each step reads (see `slowCommands`).
  await admin.config('SET', 'slowlog-log-slower-than', String(SLOW_COMMAND_MICROS));
  await admin.config('SET', 'slowlog-max-len', '1024');
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    pid: child.pid!,
    admin,
    version: server.redis_version ?? 'unknown',
    async stop() {
      admin.disconnect();
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Commands that take Redis at least this long (µs) are kept in its slow log for the step's report. */
export const SLOW_COMMAND_MICROS = 2_000;

/** A command Redis took long over, from its slow log. */
export interface SlowCommand {
  /** The command and its first argument (a key; for a script its sha, key count and first key), without the rest. */
  command: string;
  micros: number;
}

/**
 * The commands of the slow log since the last call, slowest first (and empties it): what held up
 * every client of this Redis, since a Redis command runs alone.
 */
export async function slowCommands(redis: Redis): Promise<SlowCommand[]> {
  const entries = (await redis.call('SLOWLOG', 'GET', '1024')) as [number, number, number, string[]][];
  await redis.call('SLOWLOG', 'RESET');
  return entries
    .map(([, , micros, args]) => ({
      command: args
        .slice(0, /^eval/i.test(args[0] ?? '') ? 4 : 2)
        .join(' ')
        .slice(0, 100),
      micros,
    }))
    .sort((a, b) => b.micros - a.micros);
}

/** One section of INFO as a record of its fields. */
export async function info(redis: Redis, section: string): Promise<Record<string, string>> {
  const text = await redis.info(section);
  const fields: Record<string, string> = {};
  for (const line of text.split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0 && !line.startsWith('#')) fields[line.slice(0, colon)] = line.slice(colon + 1);
  }
  return fields;
}

/** Redis's own CPU time (user + system) in microseconds, from INFO cpu. */
export async function redisCpuMicros(redis: Redis): Promise<number> {
  const cpu = await info(redis, 'cpu');
  return Math.round((Number(cpu.used_cpu_user ?? 0) + Number(cpu.used_cpu_sys ?? 0)) * 1e6);
}

/** `used_memory` in bytes, after letting an incremental rehash of the main dictionary finish. */
export async function usedMemory(redis: Redis): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 300));
  return Number((await info(redis, 'memory')).used_memory);
}
