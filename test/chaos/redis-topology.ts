import { execFile } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { startRedisCluster, startRedisServer, type RedisServerProcess } from '../setup/redis-cluster.ts';
import { track } from './processes.ts';

const run = promisify(execFile);
const REDIS_CLI = process.env.REDIS_CLI ?? 'redis-cli';

/** `redis-cli -p PORT …`, its output; a node that does not answer within 1 s fails the call. */
export async function redisCli(port: number, ...args: string[]): Promise<string> {
  return (await run(REDIS_CLI, ['-p', String(port), ...args], { timeout: 1000 })).stdout;
}

/** The chaos suite's own single Redis (one it may pause), registered for the final kill. */
export async function startSingleRedis(): Promise<RedisServerProcess & { url: string; remove: () => Promise<void> }> {
  const server = await startRedisServer();
  track(server.child);
  return { ...server, url: `redis://127.0.0.1:${server.port}`, remove: () => rm(server.dir, { recursive: true, force: true }) };
}

/** One line of `CLUSTER NODES`. */
export interface ClusterNode {
  id: string;
  port: number;
  flags: string[];
  /** The master's id for a replica, `-` for a master. */
  masterId: string;
  /** Slot ranges served, `[from, to]` inclusive. */
  slots: [number, number][];
}

/** `CLUSTER NODES` as one node sees the cluster. */
export async function clusterNodes(port: number): Promise<ClusterNode[]> {
  return (await redisCli(port, 'cluster', 'nodes'))
    .trim()
    .split('\n')
    .map((line) => {
      const [id, address, flags, masterId, , , , , ...slots] = line.trim().split(' ');
      return {
        id: id!,
        port: Number(address!.split('@')[0]!.split(':').pop()),
        flags: flags!.split(','),
        masterId: masterId!,
        slots: slots
          .filter((slot) => !slot.startsWith('['))
          .map((slot) => {
            const [from, to] = slot.split('-').map(Number);
            return [from!, to ?? from!] as [number, number];
          }),
      };
    });
}

/** A Redis Cluster of masters with one replica each, quick to fail over, registered for the final kill. */
export interface ReplicatedCluster {
  nodes: RedisServerProcess[];
  /** `127.0.0.1:P1,…` of every node, as `REDIS_CLUSTER_NODES` takes it. */
  seeds: string;
  stop: () => Promise<void>;
}

/**
 * Starts 3 masters and 3 replicas (`--cluster-replicas 1`) with `cluster-node-timeout` 1000 ms, so
 * a dead master's replica takes over within about 2 s, and waits until every replica has synced
 * with its master (`master_link_status:up`): a replica that never synced could not take over.
 */
export async function startReplicatedCluster(): Promise<ReplicatedCluster> {
  const cluster = await startRedisCluster(3, { replicas: 1, nodeTimeoutMs: 1000 });
  for (const node of cluster.nodes) track(node.child);
  const deadline = Date.now() + 15_000;
  for (;;) {
    const topology = await clusterNodes(cluster.nodes[0]!.port);
    const replicas = topology.filter((node) => node.flags.includes('slave'));
    const links = await Promise.all(replicas.map(async (node) => (await redisCli(node.port, 'info', 'replication')).includes('master_link_status:up')));
    if (replicas.length === 3 && links.every(Boolean)) break;
    if (Date.now() > deadline) {
      await cluster.stop();
      throw new Error(`the cluster's replicas did not sync within 15 s: ${JSON.stringify(topology)}`);
    }
    await sleep(50);
  }
  return { nodes: cluster.nodes, seeds: cluster.nodes.map((node) => `127.0.0.1:${node.port}`).join(','), stop: cluster.stop };
}

/** The master that serves `key`'s slot, as `port`'s node sees it. */
export async function masterOf(port: number, key: string): Promise<ClusterNode> {
  const slot = Number((await redisCli(port, 'cluster', 'keyslot', key)).trim());
  const master = (await clusterNodes(port)).find((node) => node.flags.includes('master') && node.slots.some(([from, to]) => from <= slot && slot <= to));
  if (!master) throw new Error(`no master serves slot ${slot}`);
  return master;
}

/**
 * Polls the surviving nodes until the failover of `dead` is complete: each marks it `fail`, another
 * master serves every slot it served, and each reports `cluster_state:ok`.
 *
 * @returns the milliseconds it took.
 * @throws after `timeoutMs`.
 */
export async function waitForFailover(survivors: number[], dead: ClusterNode, timeoutMs = 20_000): Promise<number> {
  const started = Date.now();
  for (;;) {
    const done = await Promise.all(
      survivors.map(async (port) => {
        try {
          const [info, nodes] = await Promise.all([redisCli(port, 'cluster', 'info'), clusterNodes(port)]);
          const gone = nodes.find((node) => node.id === dead.id)?.flags.includes('fail') ?? false;
          const takenOver = dead.slots.every(([from]) => nodes.some((node) => node.id !== dead.id && node.flags.includes('master') && node.slots.some(([a, b]) => a <= from && from <= b)));
          return info.includes('cluster_state:ok') && gone && takenOver;
        } catch {
          return false;
        }
      }),
    );
    if (done.every(Boolean)) return Date.now() - started;
    if (Date.now() - started > timeoutMs) throw new Error(`no failover of ${dead.id} (port ${dead.port}) within ${timeoutMs} ms`);
    await sleep(50);
  }
}
