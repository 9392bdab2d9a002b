import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:net';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** `redis://127.0.0.1:PORT` of the private Redis of this test run. */
    redisUrl: string;
  }
}

/** The redis-server binary; `REDIS_SERVER` overrides it. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';

/**
 * vitest global set-up: starts a private, memory-only `redis-server` on a free loopback port for
 * the whole run, provides its URL as `redisUrl`, and stops it afterwards (see STACK.md "Redis in
 * tests"). It runs in the foreground because `--daemonize yes` leaves defunct processes behind.
 *
 * @returns the teardown: SIGTERM, then wait for the process to exit.
 * @throws when redis-server is missing or not ready within 10 s.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let lastError: unknown;
  // A port found free can be taken before redis binds it; try a few.
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const child = spawn(REDIS_SERVER, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      await ready(child);
      project.provide('redisUrl', `redis://127.0.0.1:${port}`);
      return () => stop(child);
    } catch (error) {
      lastError = error;
      await stop(child);
    }
  }
  throw lastError;
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  server.close();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}

function ready(child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => fail(new Error(`redis-server not ready after 10 s:\n${log}`)), 10_000);
    const fail = (error: Error) => {
      clearTimeout(timer);
      reject(error);
    };
    child.once('error', (error) => fail(new Error(`cannot start ${REDIS_SERVER}: ${error.message}`)));
    child.once('exit', (code) => fail(new Error(`redis-server exited with ${code}:\n${log}`)));
    child.stdout?.on('data', (chunk: Buffer) => {
      log += chunk;
      if (log.includes('Ready to accept connections')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      log += chunk;
    });
  });
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}
