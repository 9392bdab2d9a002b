import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The seed nodes of this run's 3-master Redis Cluster, `127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3` (`REDIS_CLUSTER_NODES`). */
    redisClusterNodes: string;
  }
}

/** The redis-server and redis-cli binaries; `REDIS_SERVER` and `REDIS_CLI` override them. */
const REDIS_SERVER = process.env.REDIS_SERVER ?? 'redis-server';
const REDIS_CLI = process.env.REDIS_CLI ?? 'redis-cli';
const run = promisify(execFile);

/** One redis-server process started by {@link startRedisServer}. */
export interface RedisServerProcess {
  port: number;
  /** The directory it runs in (`dir`: AOF, RDB and nodes.conf live here). */
  dir: string;
  child: ChildProcess;
}

/** Options of {@link startRedisServer}. */
export interface StartRedisServerOptions {
  /** The port; a free one by default. A restart passes the old one. */
  port?: number;
  /** The working directory (kept across a restart); a fresh temporary one by default. */
  dir?: string;
  /** Append-only persistence, fsynced at every write, so a restart keeps every acknowledged write. */
  appendOnly?: boolean;
  /** `--cluster-enabled yes` with `nodes.conf` in `dir`. */
  cluster?: boolean;
  /** More redis-server arguments (e.g. `--enable-debug-command local`). */
  args?: string[];
  /** `cluster-node-timeout` in ms (2000 by default): how long a silent node takes to be failed over. */
  clusterNodeTimeoutMs?: number;
}

/**
 * Starts a redis-server in the foreground on loopback (STACK.md "Redis in tests"): no RDB
 * snapshots, append-only only when asked, and waits for "Ready to accept connections".
 *
 * @throws when redis-server is missing, exits, or is not ready within 10 s.
 */
export async function startRedisServer(options: StartRedisServerOptions = {}): Promise<RedisServerProcess> {
  const port = options.port ?? (await freePort(options.cluster ?? false));
  const dir = options.dir ?? (await mkdtemp(join(tmpdir(), 'countersign-redis-')));
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', ''];
  args.push('--appendonly', options.appendOnly ? 'yes' : 'no');
  if (options.appendOnly) args.push('--appendfsync', 'always');
  if (options.cluster) args.push('--cluster-enabled', 'yes', '--cluster-config-file', 'nodes.conf', '--cluster-node-timeout', String(options.clusterNodeTimeoutMs ?? 2000));
  if (options.args) args.push(...options.args);
  const child = spawn(REDIS_SERVER, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  try {
    await ready(child);
  } catch (error) {
    await stopRedisServer({ port, dir, child });
    if (!options.dir) await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { port, dir, child };
}

/** SIGTERM (redis-server then flushes the AOF and exits) and waits for the exit. */
export async function stopRedisServer(server: RedisServerProcess): Promise<void> {
  const { child } = server;
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, 'exit');
  child.kill('SIGTERM');
  await exited;
}

/** Options of {@link startRedisCluster}. */
export interface StartRedisClusterOptions {
  /** Replicas per master (`--cluster-replicas`), 0 by default. */
  replicas?: number;
  /** Each node's `cluster-node-timeout`, ms (see {@link StartRedisServerOptions}). */
  nodeTimeoutMs?: number;
}

/**
 * Starts `masters × (1 + replicas)` cluster-enabled nodes, joins them with `redis-cli --cluster
 * create … --cluster-replicas R --cluster-yes`, and waits until every node reports `cluster_state:ok`.
 *
 * @returns the nodes (ask `CLUSTER NODES` which is a master: `--cluster create` may place them
 *   otherwise than in start order) and the teardown (stop every node, remove its directory).
 */
export async function startRedisCluster(masters = 3, options: StartRedisClusterOptions = {}): Promise<{ nodes: RedisServerProcess[]; stop: () => Promise<void> }> {
  const replicas = options.replicas ?? 0;
  const nodes: RedisServerProcess[] = [];
  const stop = async () => {
    await Promise.all(nodes.map((node) => stopRedisServer(node)));
    await Promise.all(nodes.map((node) => rm(node.dir, { recursive: true, force: true })));
  };
  try {
    for (let i = 0; i < masters * (1 + replicas); i++) {
      nodes.push(await startRedisServer({ cluster: true, ...(options.nodeTimeoutMs === undefined ? {} : { clusterNodeTimeoutMs: options.nodeTimeoutMs }) }));
    }
    const addresses = nodes.map((node) => `127.0.0.1:${node.port}`);
    await run(REDIS_CLI, ['--cluster', 'create', ...addresses, '--cluster-replicas', String(replicas), '--cluster-yes'], { timeout: 20_000 });
    await waitForClusterOk(nodes);
    return { nodes, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Polls `CLUSTER INFO` on every node until each reports `cluster_state:ok`. @throws after 15 s. */
export async function waitForClusterOk(nodes: RedisServerProcess[]): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const infos = await Promise.all(nodes.map(async (node) => (await run(REDIS_CLI, ['-p', String(node.port), 'cluster', 'info'])).stdout));
    if (infos.every((info) => info.includes('cluster_state:ok'))) return;
    if (Date.now() > deadline) throw new Error(`Redis Cluster not ok after 15 s:\n${infos.join('\n')}`);
    await sleep(50);
  }
}

/**
 * vitest global set-up: a 3-master Redis Cluster on loopback for the whole run (about 1 s to
 * start), its seed list provided as `redisClusterNodes`; the teardown stops the nodes and removes
 * their directories.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  let lastError: unknown;
  // A port found free can be taken before redis binds it; try a few times.
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const cluster = await startRedisCluster(3);
      project.provide('redisClusterNodes', cluster.nodes.map((node) => `127.0.0.1:${node.port}`).join(','));
      return cluster.stop;
    } catch (error) {
      lastError = error;
    }
  }
  throw lastError;
}

/**
 * A free loopback port. A cluster node also listens on port + 10000 (the cluster bus), so for one
 * the port is picked below 55536 and both must be free.
 */
async function freePort(cluster: boolean): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = cluster ? 20_000 + Math.floor(Math.random() * 30_000) : 0;
    const bound = await tryListen(port);
    if (bound === null) continue;
    if (!cluster || (await tryListen(bound + 10_000)) !== null) return bound;
  }
  throw new Error('no free port pair for a Redis Cluster node');
}

async function tryListen(port: number): Promise<number | null> {
  const server = createServer();
  try {
    server.listen(port, '127.0.0.1');
    await once(server, 'listening');
    const address = server.address();
    return address === null || typeof address === 'string' ? null : address.port;
  } catch {
    return null;
  } finally {
    server.close();
  }
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
    let started = false;
    // Keep reading after start-up, so the pipe never fills and blocks the server's logging.
    child.stdout?.on('data', (chunk: Buffer) => {
      if (started) return;
      log += chunk;
      if (log.includes('Ready to accept connections')) {
        started = true;
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => {
      if (!started) log += chunk;
    });
  });
}
