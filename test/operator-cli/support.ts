import { createAgentClient, type AgentClient } from '@countersign/agent';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { createHarness, freePort, type EnrolledUser, type Harness } from '../support/harness.ts';

/**
 * The operator's command-line tool, run as a child process (`tsx server/src/operator/cli.ts`)
 * against a real server listening on a socket. Its stdout is a pipe here, so plain output is the
 * tab-separated form scripts read.
 *
 * What test/operator-cli/ shares: one listening server per file with bob enrolled and a client,
 * and running the CLI against it.
 */
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
const CLI = `${ROOT}server/src/operator/cli.ts`;

/** What one run of the CLI did. */
export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

// The file's running server and what it holds, as live bindings that `cliSuite`'s `beforeAll` sets.
/** The server, listening on a socket. */
export let harness: Harness;
/** An agent of the client `Support agent`. */
export let agent: AgentClient;
/** A person enrolled with a device. */
export let bob: EnrolledUser;

/**
 * Starts a server listening on a socket before the file's tests (closed after them), and answers
 * `cli` (run to the end), `start` (running) and `fields` (read `key<TAB>value` output) against it.
 */
export function cliSuite() {
  let url: string;

  beforeAll(async () => {
    const port = await freePort();
    harness = await createHarness({ publicUrl: `http://localhost:${port}` });
    await harness.listen(port);
    // 127.0.0.1: the harness listens on IPv4 loopback only.
    url = `http://127.0.0.1:${port}`;
    bob = await harness.enrollUser('bob');
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });

  afterAll(async () => {
    await harness?.close();
  });

  /** Runs the CLI to its end. */
  function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<Run> {
    const child = start(args, env);
    return child.done;
  }

  /**
   * Starts the CLI; `done` settles when it exits. `direct` runs it as `node --import tsx` rather
   * than through tsx's launcher, which runs the script in a child process of its own: a signal
   * sent to the launcher reaches the CLI only relayed, while Ctrl-C in a terminal reaches both.
   */
  function start(args: string[], env: Record<string, string | undefined> = {}, direct = false) {
    const child = spawn(direct ? process.execPath : TSX, [...(direct ? ['--import', 'tsx'] : []), CLI, ...args], {
      cwd: ROOT,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, COUNTERSIGN_URL: url, ADMIN_TOKEN: harness.adminToken, ...env } as NodeJS.ProcessEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const run: Run = { code: null, stdout: '', stderr: '' };
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (run.stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (run.stderr += chunk));
    const done = new Promise<Run>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`the CLI did not finish: ${args.join(' ')}\n${run.stdout}\n${run.stderr}`));
      }, 60_000);
      child.on('exit', (code) => {
        clearTimeout(timer);
        run.code = code;
        resolve(run);
      });
    });
    return { child, run, done };
  }

  /** `key<TAB>value` lines as an object. */
  function fields(stdout: string): Record<string, string> {
    return Object.fromEntries(
      stdout
        .trimEnd()
        .split('\n')
        .map((line) => line.split('\t') as [string, string]),
    );
  }
  return { cli, start, fields };
}
