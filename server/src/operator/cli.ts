#!/usr/bin/env node
/**
 * The operator's command-line tool, `countersign-admin <command>`: the `bin` of the server package,
 * built to plain JavaScript (`pnpm --filter ./server build` → `server/dist/operator/cli.js`, which
 * needs Node and `qrcode-terminal`, nothing else), or run from source with `tsx
 * server/src/operator/cli.ts`. It talks to a running server's admin API (`COUNTERSIGN_URL`,
 * `ADMIN_TOKEN`) from any folder; see `USAGE` in `usage.ts`.
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
