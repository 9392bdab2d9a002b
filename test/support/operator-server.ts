import { keys } from '@countersign/server';
import { fileURLToPath } from 'node:url';
import { storedEvent, type StoredAuditEvent } from '../../server/src/audit/index.ts';
import type { PushSender } from '../../server/src/push/index.ts';
import { createHarness, freePort, type Harness } from './harness.ts';
import { runProcess, type Run } from './operator-process.ts';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
const CLI = `${ROOT}server/src/operator/cli.ts`;

/** One push the fake sender of {@link startOperatorServer} took: where to, and what it said. */
export interface SentPush {
  endpoint: string;
  payload: { kind: string; auth_req_id: string; summary: string };
}

/** A server listening on a socket for the operator CLI, and what the tests read of it. */
export interface OperatorServer {
  harness: Harness;
  /** Every push sent, in order. */
  pushes: SentPush[];
  /** Runs `tsx server/src/operator/cli.ts …` against the server (stdout a pipe: tab-separated output). */
  cli(args: string[], env?: Record<string, string>): Promise<Run>;
  /** The default tenant's audit chain, oldest first. */
  audit(): Promise<StoredAuditEvent[]>;
}

/** Starts a harness listening on a free port, with a push sender that records every push. */
export async function startOperatorServer(): Promise<OperatorServer> {
  const pushes: SentPush[] = [];
  const sender: PushSender = {
    send: async (subscription, payload) => {
      pushes.push({ endpoint: subscription.endpoint, payload: JSON.parse(payload) });
      return { status: 'sent', statusCode: 201 };
    },
  };
  const port = await freePort();
  const harness = await createHarness({ publicUrl: `http://localhost:${port}`, pushSender: sender });
  await harness.listen(port);
  // 127.0.0.1: the harness listens on IPv4 loopback only.
  const url = `http://127.0.0.1:${port}`;
  return {
    harness,
    pushes,
    cli: (args, env = {}) => runProcess(TSX, [CLI, ...args], { cwd: ROOT, env: { COUNTERSIGN_URL: url, ADMIN_TOKEN: harness.adminToken, ...env } }),
    audit: async () => (await harness.store.streamRange(keys.auditChain('default'))).flatMap((entry) => storedEvent(entry, 'default') ?? []),
  };
}

/** The rows of tab-separated output. */
export function rows(stdout: string): string[][] {
  return stdout
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((line) => line.split('\t'));
}

/** The `--cursor` a list printed on stderr for its next page, if any. */
export function cursorIn(stderr: string): string | undefined {
  return /--cursor (\S+)/.exec(stderr)?.[1];
}
