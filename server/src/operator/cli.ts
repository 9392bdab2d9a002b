#!/usr/bin/env -S npx tsx
/**
 * The operator's command-line tool: `tsx server/src/operator/cli.ts <command>`. It talks to a
 * running server's admin API (`COUNTERSIGN_URL`, `ADMIN_TOKEN`); see `USAGE` in `run-cli.ts`.
 */
import { runCli } from './run-cli.ts';

const controller = new AbortController();
// Ctrl-C ends `audit follow` cleanly (exit 0); a second one kills at once.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => controller.abort());
}

runCli(process.argv.slice(2), {
  env: process.env,
  signal: controller.signal,
  output: {
    tty: process.stdout.isTTY === true,
    out: (line) => void process.stdout.write(`${line}\n`),
    err: (line) => void process.stderr.write(`${line}\n`),
  },
}).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  },
);
