import { type Cluster, Redis, type RedisOptions } from 'ioredis';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from './redis-connect.ts';
import { guardStoreMethods, registerGuard } from './redis-guard.ts';
import * as indexes from './redis/index-store.ts';
import * as queues from './redis/queue-store.ts';
import * as records from './redis/record-store.ts';
import { RedisState } from './redis/state.ts';
import * as streams from './redis/stream-store.ts';
import * as windows from './redis/window-store.ts';
import type {
  CasResult,
  CompareAndSetOptions,
  Fields,
  Guard,
  RateEntry,
  RateResult,
  SortedWindowEntry,
  SortedWindowResult,
  Store,
  StreamAppendManyResult,
  StreamClaimResult,
  StreamConsumer,
  StreamEntry,
  StreamIndex,
  StreamMark,
  StreamTrimResult,
  ThrottleResult,
  ThrottleRule,
  WindowEntry,
  WindowResult,
} from './types.ts';

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** A connected ioredis client or cluster; the store owns it from now on and `close()` quits it. */
  redis: Redis | Cluster;
  /** Put before every key, `cs:` by default. Without braces, so it never changes a key's hash slot. */
  prefix?: string;
}

/**
 * The Redis {@link Store}, the production store (docs/design.md "Storage"). Every multi-step
 * operation is one Lua script over one key, so it is atomic and Redis Cluster safe. TTLs are
 * whole or fractional seconds, sent to Redis in milliseconds. Every operation is guarded
 * (redis-guard.ts): a Redis failure is retried where that is safe, or rejects with
 * `StoreUnavailableError` (503 `temporarily_unavailable`), within the caller's store deadline.
 *
 * @throws TypeError when `prefix` holds a brace.
 */
export class RedisStore implements Store {
  readonly kind = 'redis' as const;
  // Client, scripts, prefix for redis/*.ts; each operation stays a method here for guardStoreMethods.
  readonly #state: RedisState;

  constructor(options: RedisStoreOptions) {
    this.#state = new RedisState(options.redis, options.prefix ?? 'cs:');
    registerGuard(this, this.#state.redis);
  }

  get(key: string): Promise<string | null> {
    return records.get(this.#state, key);
  }

  set(key: string, value: string, options: { ttlSeconds?: number; onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    return records.set(this.#state, key, value, options);
  }

  take(key: string): Promise<string | null> {
    return records.take(this.#state, key);
  }

  replace(key: string, expected: string, value: string): Promise<boolean> {
    return records.replace(this.#state, key, expected, value);
  }

  delete(key: string): Promise<boolean> {
    return records.deleteKey(this.#state, key);
  }

  time(): Promise<number> {
    return records.time(this.#state);
  }

  /** @throws RangeError when `fields` is empty: Redis keeps no empty hash. */
  hashCreate(key: string, fields: Fields, ttlSeconds: number): Promise<boolean> {
    return records.hashCreate(this.#state, key, fields, ttlSeconds);
  }

  hashGet(key: string): Promise<Fields | null> {
    return records.hashGet(this.#state, key);
  }

  hashGetField(key: string, field: string): Promise<string | null> {
    return records.hashGetField(this.#state, key, field);
  }

  hashLength(key: string): Promise<number> {
    return records.hashLength(this.#state, key);
  }

  hashSet(key: string, fields: Fields, ttlSeconds?: number): Promise<void> {
    return records.hashSet(this.#state, key, fields, ttlSeconds);
  }

  hashDelete(key: string, field: string): Promise<boolean> {
    return records.hashDelete(this.#state, key, field);
  }

  compareAndSet(key: string, guards: Guard[], set: Fields, options: CompareAndSetOptions = {}): Promise<CasResult> {
    return records.compareAndSet(this.#state, key, guards, set, options);
  }

  hashThrottle(key: string, rule: ThrottleRule): Promise<ThrottleResult> {
    return records.hashThrottle(this.#state, key, rule);
  }

  windowAdd(key: string, entry: WindowEntry): Promise<WindowResult> {
    return windows.windowAdd(this.#state, key, entry);
  }

  windowRemove(key: string, member: string): Promise<boolean> {
    return windows.windowRemove(this.#state, key, member);
  }

  sortedWindowAdd(key: string, entry: SortedWindowEntry): Promise<SortedWindowResult> {
    return windows.sortedWindowAdd(this.#state, key, entry);
  }

  sortedWindowMembers(key: string, nowMs: number, windowMs: number): Promise<string[]> {
    return windows.sortedWindowMembers(this.#state, key, nowMs, windowMs);
  }

  rateLimit(key: string, entry: RateEntry): Promise<RateResult> {
    return windows.rateLimit(this.#state, key, entry);
  }

  setAdd(key: string, member: string, ttlSeconds?: number): Promise<void> {
    return indexes.setAdd(this.#state, key, member, ttlSeconds);
  }

  setRemove(key: string, member: string): Promise<void> {
    return indexes.setRemove(this.#state, key, member);
  }

  setMembers(key: string): Promise<string[]> {
    return indexes.setMembers(this.#state, key);
  }

  sortedAdd(key: string, member: string, score: number, ttlSeconds?: number): Promise<void> {
    return indexes.sortedAdd(this.#state, key, member, score, ttlSeconds);
  }

  sortedRangeByScore(key: string, maxScore: number, limit: number): Promise<string[]> {
    return indexes.sortedRangeByScore(this.#state, key, maxScore, limit);
  }

  sortedRangeAfter(key: string, after: string | null, limit: number): Promise<string[]> {
    return indexes.sortedRangeAfter(this.#state, key, after, limit);
  }

  sortedRemove(key: string, member: string): Promise<boolean> {
    return indexes.sortedRemove(this.#state, key, member);
  }

  streamAppend(key: string, fields: Fields): Promise<string> {
    return streams.streamAppend(this.#state, key, fields);
  }

  streamAppendManyAfter(key: string, lastId: string | null, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): Promise<StreamAppendManyResult> {
    return streams.streamAppendManyAfter(this.#state, key, lastId, entries, indexes);
  }

  streamGet(key: string, ids: readonly string[]): Promise<(StreamEntry | null)[]> {
    return streams.streamGet(this.#state, key, ids);
  }

  streamIndexRead(key: string): Promise<string[]> {
    return streams.streamIndexRead(this.#state, key);
  }

  streamRange(key: string, afterId?: string, count?: number): Promise<StreamEntry[]> {
    return streams.streamRange(this.#state, key, afterId, count);
  }

  streamTrimBefore(key: string, minId: string, mark: StreamMark): Promise<StreamTrimResult> {
    return streams.streamTrimBefore(this.#state, key, minId, mark);
  }

  streamGroupCreate(key: string, group: string): Promise<boolean> {
    return queues.streamGroupCreate(this.#state, key, group);
  }

  streamGroupRead(key: string, group: string, consumer: string, count: number): Promise<StreamEntry[] | null> {
    return queues.streamGroupRead(this.#state, key, group, consumer, count);
  }

  streamAck(key: string, group: string, ids: string[]): Promise<number> {
    return queues.streamAck(this.#state, key, group, ids);
  }

  streamClaim(key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): Promise<StreamClaimResult | null> {
    return queues.streamClaim(this.#state, key, group, consumer, options);
  }

  streamConsumers(key: string, group: string): Promise<StreamConsumer[]> {
    return queues.streamConsumers(this.#state, key, group);
  }

  streamConsumerRemove(key: string, group: string, consumer: string, options: { minIdleMs: number }): Promise<boolean> {
    return queues.streamConsumerRemove(this.#state, key, group, consumer, options);
  }

  streamLength(key: string): Promise<number> {
    return queues.streamLength(this.#state, key);
  }

  streamPendingCount(key: string, group: string): Promise<number> {
    return queues.streamPendingCount(this.#state, key, group);
  }

  async close(): Promise<void> {
    if (this.#state.redis.status !== 'end') await this.#state.redis.quit();
  }
}

// Retries, the store deadline and 503s for every operation, around the methods above.
guardStoreMethods(RedisStore.prototype);

/** Options of {@link connectRedisStore}. */
export interface ConnectRedisStoreOptions {
  /** Key prefix, `cs:` by default. */
  prefix?: string;
  /** ioredis options that override the defaults below. */
  redis?: RedisOptions;
  /** Receives connection errors after start-up (without a listener ioredis prints each one). */
  onError?: (error: Error) => void;
}

/**
 * Connects to `url` (`redis://[user:pass@]host:port[/db]`, `rediss://` for TLS) and answers a
 * {@link RedisStore} once the server replies, so a wrong `REDIS_URL` fails at start-up.
 * Defaults: connect now, give up on a command after 2 reconnection attempts rather than queue
 * it forever, and pipeline concurrent commands automatically.
 *
 * @throws Error `cannot reach Redis: …` (the socket error as `cause`) when the server does not answer.
 */
export async function connectRedisStore(url: string, options: ConnectRedisStoreOptions = {}): Promise<RedisStore> {
  const redis = new Redis(url, {
    lazyConnect: false,
    maxRetriesPerRequest: 2,
    enableAutoPipelining: true,
    connectionName: 'countersign',
    // As `connectRedis` (redis-connect.ts): a stalled Redis fails the command, and a command cut
    // off by a dropped connection is not sent twice.
    commandTimeout: DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
    autoResendUnfulfilledCommands: false,
    ...options.redis,
  });
  // Listen while connecting: it keeps the socket error for the message, and stops ioredis from
  // logging every refused attempt as an "Unhandled error event".
  let socketError: Error | undefined;
  const remember = (error: Error) => {
    socketError = error;
  };
  redis.on('error', remember);
  try {
    await redis.ping();
  } catch (error) {
    redis.disconnect();
    const cause = socketError ?? (error as Error);
    throw new Error(`cannot reach Redis: ${cause.message}`, { cause });
  } finally {
    redis.off('error', remember);
  }
  if (options.onError) redis.on('error', options.onError);
  return new RedisStore(options.prefix === undefined ? { redis } : { redis, prefix: options.prefix });
}
