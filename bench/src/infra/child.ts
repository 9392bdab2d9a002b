import { spawn, type ChildProcess } from 'node:child_process';
import { openSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository root (bench/src/infra → ../../..). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const PRELOAD = fileURLToPath(new URL('../profile/preload.mjs', import.meta.url));

/** CPU time of a child process, microseconds (user + system, every thread: V8, libuv's pool, GC). */
export interface CpuSample {
  user: number;
  system: number;
}

/** What held up a child's event loop over a span (see `profile/preload.mjs`, `stalls`). */
export interface Stalls {
  /** Event loop delay: the longest, and the 99th percentile, milliseconds. */
  loop: { maxMs: number; p99Ms: number };
  /** Garbage collections: how many, their total and longest pause (ms), and how many were major. */
  gc: { count: number; totalMs: number; maxMs: number; major: number };
}

/** A Node child process started with tsx and the benchmark's IPC preload. */
export interface NodeChild {
  pid: number;
  process: ChildProcess;
  /** Its own `process.cpuUsage()`, asked over IPC. */
  cpu(): Promise<number>;
  /** What held up its event loop since the last call (the first call starts the span). */
  stalls(): Promise<Stalls>;
  startProfile(intervalMicros?: number): Promise<void>;
  stopProfile(file: string): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts `node --import tsx --import preload.mjs <entry>` from the repository root, with its
 * output appended to `logFile`. Same as `tsx <entry>`, plus the IPC channel the preload answers on.
 */
export function startNodeChild(entry: string, env: Record<string, string>, logFile: string, nodeArgs: string[] = []): NodeChild {
  const log = openSync(logFile, 'a');
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', '--import', PRELOAD, entry], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', log, log, 'ipc'],
  });
  let nextId = 1;
  const waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  child.on('message', (message: { id?: number }) => {
    const resolve = message?.id === undefined ? undefined : waiting.get(message.id);
    if (resolve) {
      waiting.delete(message.id!);
      resolve(message as Record<string, unknown>);
    }
  });
  const ask = (body: Record<string, unknown>, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const id = nextId++;
      const timer = setTimeout(() => {
        waiting.delete(id);
        reject(new Error(`child ${entry} did not answer ${String(body.cmd)}`));
      }, timeoutMs);
      waiting.set(id, (reply) => {
        clearTimeout(timer);
        if (typeof reply.error === 'string') reject(new Error(reply.error));
        else resolve(reply);
      });
      child.send({ id, ...body });
    });
  return {
    pid: child.pid!,
    process: child,
    async cpu() {
      const { cpu } = (await ask({ cmd: 'cpu' })) as { cpu: CpuSample };
      return cpu.user + cpu.system;
    },
    async stalls() {
      const { loop, gc } = (await ask({ cmd: 'stalls' })) as unknown as Stalls;
      return { loop, gc };
    },
    async startProfile(intervalMicros = 1000) {
      await ask({ cmd: 'profile-start', interval: intervalMicros });
    },
    async stopProfile(file) {
      await ask({ cmd: 'profile-stop', file }, 120_000);
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

/**
 * Waits until `url` answers 200 (the child is listening), or fails when the child exits first.
 * @throws Error naming the log file to read.
 */
export async function waitForHttp(url: string, child: NodeChild, logFile: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.process.exitCode !== null) throw new Error(`${url}: the process exited with ${child.process.exitCode}; see ${logFile}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      /* not listening yet */
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not answer within ${timeoutMs} ms; see ${logFile}`);
}

/**
 * Waits until the child has been nearly idle (under 5% of a core) for 300 ms: background work a
 * run started (pushes) must not land in the next run's figures. Gives up after `timeoutMs`.
 */
export async function waitIdle(child: NodeChild, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = await child.cpu();
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 300));
    const now = await child.cpu();
    if (now - last < 0.05 * 300_000) return;
    last = now;
  }
}
