import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Cluster, Redis } from 'ioredis';
import { createAuditLog } from '../../server/src/audit/index.ts';
import { runAuditCommand } from '../../server/src/cli/audit-command.ts';
import { systemClock } from '../../server/src/runtime/index.ts';
import { RedisStore } from '../../server/src/store/index.ts';
import { SERVER_PREFIX, TENANT } from './problems.ts';
import { REPO_ROOT } from './processes.ts';

// The audit chain's check after a run, as an operator runs it.

const execFileAsync = promisify(execFile);

/**
 * `audit verify --tenant default` as an operator runs it: `tsx server/src/cli/audit.ts` with the
 * deployment's `REDIS_URL`. Exit 0 means the chain holds.
 */
export async function auditVerifyCli(redisUrl: string): Promise<{ code: number; output: string }> {
  try {
    const { stdout, stderr } = await execFileAsync(process.execPath, ['--import', 'tsx', 'server/src/cli/audit.ts', 'verify', '--tenant', TENANT], {
      cwd: REPO_ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', REDIS_URL: redisUrl },
      timeout: 30_000,
    });
    return { code: 0, output: `${stdout}${stderr}`.trim() };
  } catch (error) {
    const failed = error as { code?: number; stdout?: string; stderr?: string; message: string };
    return { code: typeof failed.code === 'number' ? failed.code : -1, output: `${failed.stdout ?? ''}${failed.stderr ?? failed.message}`.trim() };
  }
}

/**
 * `audit verify --tenant default` on a Redis Cluster: the command the CLI runs
 * (`runAuditCommand`), given the audit log of the server's store on the cluster, since
 * `server/src/cli/audit.ts` reads only `REDIS_URL`.
 */
export async function auditVerifyOn(redis: Redis | Cluster): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const store = new RedisStore({ redis, prefix: SERVER_PREFIX });
  const code = await runAuditCommand(['verify', '--tenant', TENANT], {
    openAudit: async () => ({ audit: createAuditLog(store, systemClock, 1), close: async () => {} }),
    readLines: () => {
      throw new Error('no file here');
    },
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
  });
  return { code, output: lines.join('\n') };
}
