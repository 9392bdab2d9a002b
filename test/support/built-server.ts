import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { freePort } from './harness.ts';
import { startRedisServer, stopRedisServer, type RedisServerProcess } from './cluster.ts';
import { createSoftAuthenticator } from './soft-authenticator.ts';

/**
 * The built server (README "Running in production"): `pnpm build` emits
 * `server/dist/`, `pnpm deploy --prod` makes a runtime folder of it outside the repository, and
 * plain `node dist/main.js` runs that without tsx, dev dependencies or the workspace's
 * source-condition, on a Redis of this file's own. The
 * whole flow passes against it over HTTP; SIGTERM under load answers or refuses every request it
 * accepted, leaves no half-written record, and exits 0.
 *
 * What test/built-server-flow.test.ts and test/built-server-shutdown.test.ts share: the deployed
 * folder (made once per file, before its tests), a Redis of its own, starting the server, enrolling.
 */
/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/** The runtime folder `pnpm deploy --prod` makes of the built server: its dist/ and its production dependencies only. */
const DEPLOYED = mkdtempSync(join(tmpdir(), 'countersign-deployed-'));
const MAIN = join(DEPLOYED, 'dist', 'main.js');
/** The admin token the built server runs with. */
export const ADMIN_TOKEN = 'built-admin-token-0123456789abcdef';

/** A started server process, its URL, what it wrote so far, and its exit. */
export interface Running {
  child: ChildProcess;
  url: string;
  output: () => string;
  exited: Promise<number | null>;
}

/** Starts `node server/dist/main.js` and answers once it listens. */
export async function startBuilt(redisUrl: string, extraEnv: Record<string, string> = {}): Promise<Running> {
  const port = await freePort();
  const url = `http://localhost:${port}`;
  const cwd = mkdtempSync(join(tmpdir(), 'countersign-built-'));
  // No NODE_OPTIONS: pnpm's `--conditions=countersign-source` would load the workspace's TypeScript.
  const env = { PATH: process.env.PATH ?? '', HOME: cwd, PORT: String(port), PUBLIC_URL: url, REDIS_URL: redisUrl, ADMIN_TOKEN, LOG_LEVEL: 'info', ...extraEnv };
  const child = spawn(process.execPath, [MAIN], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      rmSync(cwd, { recursive: true, force: true });
      resolve(code);
    }),
  );
  const deadline = Date.now() + 20_000;
  while (!output.includes('countersign listening')) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`the built server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { child, url, output: () => output, exited };
}

/** Creates `sub` through the admin API and enrolls a software passkey through the device API; answers the device session. */
export async function enroll(url: string, sub: string) {
  const admin = { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' };
  const json = { origin: url, 'content-type': 'application/json' };
  expect((await fetch(`${url}/api/admin/users`, { method: 'POST', headers: admin, body: JSON.stringify({ sub, display_name: sub }) })).status).toBe(201);
  const { enrollment_code } = await (await fetch(`${url}/api/admin/users/${sub}/enrollments`, { method: 'POST', headers: admin })).json();
  const authenticator = createSoftAuthenticator({ origin: url, rpId: 'localhost' });
  const options = await (await fetch(`${url}/api/device/enroll/options`, { method: 'POST', headers: json, body: JSON.stringify({ enrollment_code }) })).json();
  const response = await authenticator.register(options);
  const enrolled = await fetch(`${url}/api/device/enroll/verify`, { method: 'POST', headers: json, body: JSON.stringify({ enrollment_code, response, device_name: 'Phone' }) });
  expect(enrolled.status).toBe(200);
  return { authenticator, cookie: (enrolled.headers.get('set-cookie') ?? '').split(';')[0]! };
}

/** The file's own redis-server, a live binding that `deployedServer`'s `beforeAll` sets. */
export let redis: RedisServerProcess;

/**
 * Deploys the built server before the file's tests (`pnpm deploy --prod`, checking that only
 * production dependencies came along) and starts a Redis of the file's own; removes both after.
 */
export function deployedServer(): void {
  beforeAll(async () => {
    expect(existsSync(join(ROOT, 'server/dist/main.js')), 'pnpm build emits server/dist/main.js').toBe(true);
    execFileSync('pnpm', ['--filter', '@countersign/server', 'deploy', '--prod', DEPLOYED], { cwd: ROOT, stdio: 'pipe', env: { ...process.env, NODE_OPTIONS: '' } });
    // No development dependency made it: pino-pretty, tsx, vitest.
    expect(['pino', 'prom-client', 'hono', '@countersign/shared'].map((name) => existsSync(join(DEPLOYED, 'node_modules', name)))).toEqual([true, true, true, true]);
    expect(['pino-pretty', 'tsx', 'vitest'].map((name) => existsSync(join(DEPLOYED, 'node_modules', name)))).toEqual([false, false, false]);
    redis = await startRedisServer();
  }, 60_000);
  afterAll(async () => {
    await stopRedisServer(redis);
    rmSync(DEPLOYED, { recursive: true, force: true });
  });
}
