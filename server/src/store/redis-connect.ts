import { Cluster, Redis, type ClusterOptions, type RedisOptions } from 'ioredis';

// How a Redis error failed lives in redis-failure-of.ts; re-exported where callers import it from.
export { redisFailureOf, type RedisFailure } from './redis-failure-of.ts';

/** One seed node of a Redis Cluster. */
export interface ClusterSeed {
  host: string;
  port: number;
}

/**
 * Where the Redis store lives: one server (`REDIS_URL`, `redis://` or `rediss://` for TLS, with
 * any user and password in the URL) or a Redis Cluster reached through a few seed nodes
 * (`REDIS_CLUSTER_NODES`); the client learns the rest of the cluster from them.
 */
export type RedisTarget = { kind: 'single'; url: string } | { kind: 'cluster'; nodes: ClusterSeed[]; username?: string; password?: string; tls?: boolean };

/**
 * Milliseconds a Redis command may take before it fails (`commandTimeout`). A healthy Redis
 * answers in well under a millisecond; past this, the server answers 503 rather than keep the
 * caller waiting on a Redis that is stalled, paused or gone.
 */
export const DEFAULT_REDIS_COMMAND_TIMEOUT_MS = 2000;

/** Milliseconds {@link connectRedis} waits for Redis to answer at start-up. */
const CONNECT_TIMEOUT_MS = 10_000;

/** Options of {@link connectRedis}. */
export interface ConnectRedisOptions {
  /** {@link DEFAULT_REDIS_COMMAND_TIMEOUT_MS} by default. */
  commandTimeoutMs?: number;
  /** The connection's name in `CLIENT LIST`; `countersign` by default. */
  name?: string;
  /** Receives connection errors after start-up (without a listener ioredis prints each one). */
  onError?: (error: Error) => void;
  /** ioredis options that override the defaults (of every node's connection, in a cluster). */
  redis?: RedisOptions;
}

/**
 * Connects to a single Redis or a Redis Cluster and answers the client once Redis replies, so a
 * wrong address fails at start-up, not at the first request.
 *
 * The defaults are chosen so that a Redis in trouble gives a prompt error, never a hang and never
 * a misread answer (the error handler turns these errors into 503, see `redisFailureOf`):
 * - `commandTimeout`: every command fails after {@link ConnectRedisOptions.commandTimeoutMs},
 *   wherever it waits (sent, or queued while reconnecting).
 * - `autoResendUnfulfilledCommands: false`: a command whose connection dropped before its reply
 *   is not sent again after the reconnect. Sent again, a redeem's compare-and-swap could run
 *   twice and answer its own winner `already_redeemed`; failed, it is reported as an unknown
 *   outcome (503) and the caller's retry reads the truth.
 * - a single server: `maxRetriesPerRequest: 2` (a queued command fails after two reconnection
 *   attempts); a cluster: `enableOfflineQueue: false`, because ioredis queues a cluster's commands
 *   while it has no slot map without any timeout, so they would wait for as long as the outage lasts.
 * - `enableAutoPipelining` (both kinds): the commands issued in one tick of the event loop (a
 *   `Promise.all` of a request's independent steps, and whatever concurrent requests send meanwhile)
 *   leave in one socket write per Redis node and cost one round trip together; in a cluster, one
 *   pipeline per node, grouped by the slot's owner. While a node's pipeline is in flight, the next
 *   one for that node collects commands and leaves when it lands: under load commands wait at most
 *   one round trip longer, and in return share it. How it meets the other defaults:
 *   `commandTimeout` starts when a command is written, so a command waiting behind an in-flight
 *   pipeline waits at most that pipeline's timeout more (its commands time out, and it is done),
 *   which the request's store deadline cuts back to one timeout in all (store-deadline.ts);
 *   the order of commands to one node is kept, so two commands on one hash tag issued in one tick
 *   run in the order issued; a cluster's auto-pipelined command waits for the first slot map
 *   (`connectRedis` has it before it returns, and the map is kept across reconnects), after which
 *   `enableOfflineQueue: false` refuses it at once while the cluster is down, as any other command.
 *
 * A TLS cluster resolves no names itself (`dnsLookup` passes them through), so each node's
 * certificate is checked against the name it is known by, as the ioredis documentation advises.
 *
 * @throws Error `cannot reach Redis: …` (the socket error as `cause`) when it does not answer within 10 s.
 */
export async function connectRedis(target: RedisTarget, options: ConnectRedisOptions = {}): Promise<Redis | Cluster> {
  const common: RedisOptions = {
    commandTimeout: options.commandTimeoutMs ?? DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    autoResendUnfulfilledCommands: false,
    connectionName: options.name ?? 'countersign',
    maxRetriesPerRequest: 2,
    ...options.redis,
  };
  const client = target.kind === 'single' ? new Redis(target.url, { lazyConnect: true, enableAutoPipelining: true, ...common }) : new Cluster(target.nodes, clusterOptions(target, common));
  // Listen while connecting: it keeps the socket error for the message, and stops ioredis from
  // logging every refused attempt as an "Unhandled error event".
  let socketError: Error | undefined;
  const remember = (error: Error) => {
    socketError = error;
  };
  client.on('error', remember);
  try {
    await withDeadline(client.connect(), CONNECT_TIMEOUT_MS);
    await withDeadline(client.ping(), CONNECT_TIMEOUT_MS);
  } catch (error) {
    client.disconnect();
    const cause = socketError ?? (error as Error);
    throw new Error(`cannot reach Redis${target.kind === 'cluster' ? ' Cluster' : ''}: ${cause.message}`, { cause });
  } finally {
    client.off('error', remember);
  }
  if (options.onError) client.on('error', options.onError);
  return client;
}

function clusterOptions(target: Extract<RedisTarget, { kind: 'cluster' }>, common: RedisOptions): ClusterOptions {
  const { commandTimeout, autoResendUnfulfilledCommands, connectionName, maxRetriesPerRequest, ...rest } = common;
  return {
    lazyConnect: true,
    enableOfflineQueue: false,
    enableAutoPipelining: true,
    // Every read from a master: a replica lags, and a stale read could show a redeemed request as approved.
    scaleReads: 'master',
    // No resend of a command whose node connection closed under it (ioredis' default resends after
    // 100 ms, a whole pipeline at once when all its commands got "Connection is closed."): it may
    // have run, and a compare-and-swap run twice answers its own winner `already_redeemed`, as
    // `autoResendUnfulfilledCommands` says for a single server. The store retries a read itself
    // (redis-guard.ts); a write is answered 503, outcome unknown.
    retryDelayOnFailover: 0,
    ...(target.tls ? { dnsLookup: (address: string, callback: (error: null, address: string) => void) => callback(null, address) } : {}),
    redisOptions: {
      commandTimeout,
      autoResendUnfulfilledCommands,
      connectionName,
      maxRetriesPerRequest,
      ...(target.username ? { username: target.username } : {}),
      ...(target.password ? { password: target.password } : {}),
      ...(target.tls ? { tls: {} } : {}),
      ...(rest as ClusterOptions['redisOptions']),
    },
  };
}

async function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms / 1000} s`)), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
