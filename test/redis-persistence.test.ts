import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { PersistenceSetting } from '../server/src/config/index.ts';
import { checkPersistence, connectRedis } from '../server/src/store/index.ts';
import { clusterTarget, startRedisServer, stopRedisServer, type RedisServerProcess } from './support/cluster.ts';
import { PRODUCTION_URL, productionEnv } from './support/production.ts';

/**
 * Persistence is checked at start-up (docs/security.md "Redis persistence"): in production the
 * server refuses a Redis that keeps nothing on disk, unless `REDIS_PERSISTENCE` accepts the loss,
 * and one it cannot ask, unless `REDIS_PERSISTENCE` says the provider keeps the data. Real
 * redis-servers of this file's own: one with neither AOF nor RDB, one with AOF.
 */

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;

/** Runs `pnpm start`'s server (`server/src/main.ts`) with `env` until it listens or exits; answers how. */
function startServer(env: Record<string, string>): Promise<{ code: number | null; listening: boolean; stdout: string; stderr: string }> {
  const child = spawn(TSX, [`${ROOT}server/src/main.ts`], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', PUBLIC_URL: PRODUCTION_URL, ...env } as NodeJS.ProcessEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  let listening = false;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the server neither listened nor exited\n${stdout}\n${stderr}`));
    }, 30_000);
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      stdout += chunk;
      if (!listening && stdout.includes('countersign listening')) {
        listening = true;
        child.kill('SIGTERM');
      }
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: listening ? null : code, listening, stdout, stderr });
    });
  });
}

describe('Redis persistence at start-up', () => {
  let bare: RedisServerProcess;
  let aof: RedisServerProcess;
  const url = (server: RedisServerProcess) => `redis://127.0.0.1:${server.port}`;

  beforeAll(async () => {
    [bare, aof] = await Promise.all([startRedisServer({ appendOnly: false }), startRedisServer({ appendOnly: true })]);
    // An ACL user without `+config`, as a managed Redis hands out: CONFIG GET answers NOPERM.
    const admin = new Redis(bare.port);
    await admin.call('ACL', 'SETUSER', 'app', 'on', '>app-password', '~*', '&*', '+@all', '-config');
    admin.disconnect();
  });
  afterAll(async () => {
    await Promise.all(
      [bare, aof].map(async (server) => {
        await stopRedisServer(server);
        await rm(server.dir, { recursive: true, force: true });
      }),
    );
  });

  /** The check as `main.ts` runs it, on a connection of its own; answers the warnings it logged. */
  async function check(redisUrl: string, production: boolean, setting: PersistenceSetting): Promise<string[]> {
    const redis = await connectRedis({ kind: 'single', url: redisUrl });
    const warnings: string[] = [];
    try {
      await checkPersistence(redis, { production, setting, warn: (message) => warnings.push(message) });
      return warnings;
    } finally {
      redis.disconnect();
    }
  }

  it('refuses to start production on a Redis with appendonly no and no save schedule, naming REDIS_PERSISTENCE', async () => {
    const run = await startServer({ ...productionEnv(), REDIS_URL: url(bare) });
    expect(run.listening).toBe(false);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain(`invalid configuration: Redis persistence is off on 127.0.0.1:${bare.port} (appendonly no, no save schedule)`);
    expect(run.stderr).toContain('set REDIS_PERSISTENCE=none-accepted to accept that loss');
  });

  it('starts production on a Redis with AOF, without a warning', async () => {
    const run = await startServer({ ...productionEnv(), REDIS_URL: url(aof) });
    expect(run.listening, run.stderr).toBe(true);
    expect(run.stdout + run.stderr).not.toContain('persistence');
  });

  it('starts production on the bare Redis with REDIS_PERSISTENCE=none-accepted, with a warning', async () => {
    const run = await startServer({ ...productionEnv(), REDIS_URL: url(bare), REDIS_PERSISTENCE: 'none-accepted' });
    expect(run.listening, run.stderr).toBe(true);
    expect(run.stdout + run.stderr).toContain(`Redis persistence is off on 127.0.0.1:${bare.port} (appendonly no, no save schedule) and REDIS_PERSISTENCE=none-accepted`);
  });

  it('takes an RDB save schedule as persistence', async () => {
    const admin = new Redis(bare.port);
    try {
      await admin.call('CONFIG', 'SET', 'save', '3600 1');
      expect(await check(url(bare), true, 'required')).toStrictEqual([]);
    } finally {
      await admin.call('CONFIG', 'SET', 'save', '');
      admin.disconnect();
    }
  });

  it('only warns in development', async () => {
    const warnings = await check(url(bare), false, 'required');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Redis persistence is off');
  });

  it('refuses a Redis that refuses CONFIG (NOPERM) in production unless REDIS_PERSISTENCE says managed', async () => {
    const limited = `redis://app:app-password@127.0.0.1:${bare.port}`;
    await expect(check(limited, true, 'required')).rejects.toThrow(/^invalid configuration: Redis persistence could not be checked: CONFIG GET was refused on 127\.0\.0\.1:\d+ \(NOPERM.*Set REDIS_PERSISTENCE=managed/);
    const warnings = await check(limited, true, 'managed');
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/could not be checked.*REDIS_PERSISTENCE=managed says it is the provider's to keep/);
  });

  it('refuses "managed" when the Redis answers CONFIG and keeps nothing', async () => {
    await expect(check(url(bare), true, 'managed')).rejects.toThrow(/Redis persistence is off/);
  });

  it('asks every master of a Cluster', async () => {
    const cluster = await connectRedis(clusterTarget());
    try {
      const error = await checkPersistence(cluster, { production: true, setting: 'required', warn: () => {} }).catch((caught: unknown) => caught as Error);
      expect(error).toBeInstanceOf(Error);
      const target = clusterTarget();
      const masters = target.kind === 'cluster' ? target.nodes.map((node) => `${node.host}:${node.port}`) : [];
      expect(masters).toHaveLength(3);
      const named = /persistence is off on ([^(]+) \(/
        .exec((error as Error).message)![1]!
        .split(', ')
        .sort();
      expect(named).toStrictEqual([...masters].sort());
    } finally {
      cluster.disconnect();
    }
  });
});
