/**
 * `tsx server/src/cli/audit.ts verify|export --tenant T`: the audit command on its own, against the
 * Redis store of `REDIS_URL` (with the server's key prefix). The in-memory store lives inside the
 * server process, so without `REDIS_URL` there is nothing to read. See `audit-command.ts`.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { createAuditLog } from '../audit/index.ts';
import { envSchema } from '../config/index.ts';
import { systemClock } from '../runtime/index.ts';
import { connectRedisStore } from '../store/index.ts';
import { runAuditCommand } from './audit-command.ts';

async function main(): Promise<number> {
  return runAuditCommand(process.argv.slice(2), {
    async openAudit() {
      const redisUrl = envSchema.shape.REDIS_URL.parse(process.env.REDIS_URL || undefined);
      if (!redisUrl) throw new Error("REDIS_URL is unset: the audit command reads the trail from the server's Redis. Set REDIS_URL to the server's; a server on the in-memory store (no REDIS_URL) keeps its trail in its own process, where this command cannot read it.");
      const store = await connectRedisStore(redisUrl);
      // Only reads: the retention of per-request views does not matter here.
      return { audit: createAuditLog(store, systemClock, 1), close: () => store.close() };
    },
    readLines: (path) => createInterface({ input: createReadStream(path, 'utf8'), crlfDelay: Number.POSITIVE_INFINITY }),
    out: (line) => process.stdout.write(`${line}\n`),
    err: (line) => process.stderr.write(`${line}\n`),
  });
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 3;
  },
);
