import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, mkdtempSync, openSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';

/** The repository's root: the server is started from there, as `pnpm start` does. */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/**
 * Every process the chaos suite spawned and has not seen exit. They are killed by
 * {@link killEverything} in `afterAll`, and again (synchronously, SIGKILL) if the worker exits
 * without it, so a failed or interrupted run leaves no redis-server or node behind.
 */
const live = new Set<ChildProcess>();

process.once('exit', () => {
  for (const child of live) hardKill(child);
});

/** Registers a child for {@link killEverything}; forgotten once it exits. */
export function track(child: ChildProcess): ChildProcess {
  live.add(child);
  child.once('exit', () => live.delete(child));
  return child;
}

function hardKill(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  // A stopped process (SIGSTOP) takes SIGKILL as well; the group first (servers run in their own), then the process.
  try {
    process.kill(-child.pid, 'SIGKILL');
  } catch {
    /* not a group leader */
  }
  try {
    process.kill(child.pid, 'SIGKILL');
  } catch {
    /* gone already */
  }
}

/** SIGKILLs one child (and its group) and waits for its exit: `kill -9`. */
export async function kill9(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  hardKill(child);
  await exited;
}

/** SIGKILLs every child still alive and waits for each to exit. */
export async function killEverything(): Promise<void> {
  await Promise.all([...live].map((child) => kill9(child)));
}

/** One server instance: `node --import tsx server/src/main.ts` in a process group of its own. */
export interface ServerProcess {
  name: string;
  port: number;
  /** `http://localhost:PORT`: where this instance listens (its `PUBLIC_URL` may be another's). */
  url: string;
  child: ChildProcess;
  /** Its stdout and stderr, one JSON line per log entry. */
  logPath: string;
  env: Record<string, string>;
}

/** The last `lines` lines of a server's log, for a failure message. */
export function logTail(server: ServerProcess, lines = 30): string {
  try {
    return readFileSync(server.logPath, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

const logDir = mkdtempSync(join(tmpdir(), 'countersign-chaos-'));

/**
 * Starts one server instance as its own OS process, so that it can really be `kill -9`ed: node
 * itself with tsx as a loader (the `tsx` CLI would put a second process in between, which a
 * SIGKILL to the first would orphan), in a process group of its own, logging to a file (a pipe
 * nobody reads would fill and block it). Resolves once `GET /healthz` answers.
 *
 * @param env - the server's whole environment on top of `PATH` and `HOME` (`PORT`, `PUBLIC_URL`,
 *   `REDIS_URL`…): nothing else is inherited, so the run's own `REDIS_URL` or `NODE_ENV` cannot leak in.
 * @throws when the process exits or is not healthy within 30 s (with the log's tail).
 */
export async function startServer(name: string, port: number, env: Record<string, string>): Promise<ServerProcess> {
  const logPath = join(logDir, `${name}-${Date.now()}.log`);
  const fd = openSync(logPath, 'a');
  const fullEnv = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env, PORT: String(port) };
  const child = track(spawn(process.execPath, ['--import', 'tsx', 'server/src/main.ts'], { cwd: REPO_ROOT, env: fullEnv, stdio: ['ignore', fd, fd], detached: true }));
  closeSync(fd);
  const server: ServerProcess = { name, port, url: `http://localhost:${port}`, child, logPath, env };
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${name} exited (${child.exitCode ?? child.signalCode}) at start:\n${logTail(server)}`);
    try {
      const response = await fetch(`${server.url}/healthz`, { signal: AbortSignal.timeout(1000) });
      if (response.status === 200) return server;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      await kill9(child);
      throw new Error(`${name} not healthy after 30 s:\n${logTail(server)}`);
    }
    await sleep(100);
  }
}

/** Starts the same instance again on its port with its environment (after a `kill -9`). */
export function restartServer(server: ServerProcess): Promise<ServerProcess> {
  return startServer(server.name, server.port, server.env);
}
