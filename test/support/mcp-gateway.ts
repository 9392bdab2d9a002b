import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Harness } from './harness.ts';

/** The repository root: where `pnpm --silent mcp-gateway` runs. */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The real `@modelcontextprotocol/server-memory` entry point, installed from npm. */
export const MEMORY_SERVER = createRequire(import.meta.url).resolve('@modelcontextprotocol/server-memory/dist/index.js');

/** A temp folder holding a memory server's graph file and gateway configs; `remove()` it after. */
export interface Workspace {
  dir: string;
  memoryFile: string;
  /** The names of the entities in the memory file now. */
  entities(): Promise<string[]>;
  /** Writes a gateway config for the harness's server and `client`, and answers its path. */
  config(name: string, client: { client_id: string; client_secret: string }, harness: Harness, extra?: Record<string, unknown>): Promise<string>;
  remove(): Promise<void>;
}

/** Creates a {@link Workspace} whose memory file holds one entity (type `person`) per name. */
export async function createWorkspace(names: string[]): Promise<Workspace> {
  const dir = await mkdtemp(join(tmpdir(), 'cs-mcp-'));
  const memoryFile = join(dir, 'memory.jsonl');
  await writeFile(memoryFile, names.map((name) => JSON.stringify({ type: 'entity', name, entityType: 'person', observations: [] })).join('\n'));
  return {
    dir,
    memoryFile,
    async entities() {
      const text = await readFile(memoryFile, 'utf8');
      return text
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line))
        .filter((item) => item.type === 'entity')
        .map((item) => item.name as string);
    },
    async config(name, client, harness, extra = {}) {
      const path = join(dir, `${name}.json`);
      const config = {
        countersign: { issuer: harness.issuer, client_id: client.client_id, client_secret: client.client_secret },
        login_hint: 'demo',
        upstream: { name: 'memory', command: process.execPath, args: [MEMORY_SERVER], env: { MEMORY_FILE_PATH: memoryFile } },
        gate: [],
        ...extra,
      };
      await writeFile(path, JSON.stringify(config, null, 2));
      return path;
    },
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** An MCP client connected to a gateway; `close()` ends the gateway too (stdio: its stdin closes). */
export interface GatewayClient {
  client: Client;
  /** The gateway's process id (stdio), for a test that kills it. */
  pid: number | undefined;
  /** Everything the gateway wrote to stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

/**
 * Spawns the gateway over stdio and connects the SDK's `Client` to it. `via: 'pnpm'` runs it
 * exactly as a desktop client would (`pnpm --silent mcp-gateway --config FILE`); `via: 'node'`
 * runs the same entry point in one process (`node --import tsx`), so a test can SIGKILL it.
 */
export async function connectStdio(configPath: string, options: { via?: 'pnpm' | 'node'; env?: Record<string, string>; capabilities?: ConstructorParameters<typeof Client>[1] } = {}): Promise<GatewayClient> {
  const via = options.via ?? 'pnpm';
  const [command, args] = via === 'pnpm' ? ['pnpm', ['--silent', 'mcp-gateway', '--config', configPath]] : [process.execPath, ['--import', 'tsx', 'mcp-gateway/src/main.ts', '--config', configPath]];
  const transport = new StdioClientTransport({
    command,
    args,
    cwd: REPO_ROOT,
    env: { ...(process.env as Record<string, string>), ...options.env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => void (stderr += chunk.toString()));
  const client = new Client({ name: 'countersign-test', version: '1.0.0' }, options.capabilities ?? {});
  await client.connect(transport);
  return { client, pid: transport.pid ?? undefined, stderr: () => stderr, close: () => client.close() };
}

/** A gateway serving Streamable HTTP (`--http PORT`), as a child process; `stop()` ends it. */
export interface HttpGateway {
  url: URL;
  process: ChildProcess;
  stderr(): string;
  connect(capabilities?: ConstructorParameters<typeof Client>[1]): Promise<Client>;
  stop(): Promise<void>;
}

/** Starts `pnpm --silent mcp-gateway --config FILE --http PORT` and waits until it listens. */
export async function startHttpGateway(configPath: string, port: number, env: Record<string, string> = {}): Promise<HttpGateway> {
  // Its own process group, so stop() ends pnpm, tsx and the gateway together.
  const child = spawn('pnpm', ['--silent', 'mcp-gateway', '--config', configPath, '--http', String(port)], { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let stderr = '';
  let stdout = '';
  child.stdout!.on('data', (chunk: Buffer) => void (stdout += chunk.toString()));
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  await new Promise<void>((ready, fail) => {
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (stderr.includes(`http://localhost:${port}/mcp`)) ready();
    });
    child.once('exit', (code) => fail(new Error(`gateway exited (${code}): ${stderr}${stdout}`)));
  });
  const url = new URL(`http://localhost:${port}/mcp`);
  return {
    url,
    process: child,
    stderr: () => stderr,
    async connect(capabilities = {}) {
      const client = new Client({ name: 'countersign-test-http', version: '1.0.0' }, capabilities);
      await client.connect(new StreamableHTTPClientTransport(url));
      return client;
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}

/** Polls `probe` every 50 ms until it answers something other than undefined (at most `ms`). */
export async function eventually<T>(probe: () => Promise<T | undefined>, ms = 10_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
