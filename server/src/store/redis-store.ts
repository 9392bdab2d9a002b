import { type Cluster, Redis, type RedisOptions } from 'ioredis';
import { createHash } from 'node:crypto';
import { checkIncrements } from './bounded-increment.ts';
import { DEFAULT_REDIS_COMMAND_TIMEOUT_MS } from './redis-connect.ts';
import { guardStoreMethods, registerGuard } from './redis-guard.ts';
import { checkSortedArguments } from './sorted-arguments.ts';
import { MULTI_KEY_SCRIPTS, SCRIPTS } from './redis-scripts.ts';
import { STREAM_CONSUMER_REMOVE_LUA } from './stream-consumer-script.ts';
import { checkManyEntries, checkTrim, indexIds, parseStreamId } from './stream-index.ts';
import { rateSteps } from './rate-entry.ts';
import { checkThrottleRule } from './throttle-rule.ts';
import { LateSwapError } from './types.ts';
import { checkWindowEntry, checkWindowMember } from './window-entry.ts';
import type { CasResult, CompareAndSetOptions, Fields, Guard, RateEntry, RateResult, SortedWindowEntry, SortedWindowResult, Store, StreamAppendManyResult, StreamClaimResult, StreamConsumer, StreamEntry, StreamIndex, StreamMark, StreamTrimResult, ThrottleResult, ThrottleRule, WindowEntry, WindowResult } from './types.ts';

type Scripted = Record<keyof typeof SCRIPTS, (key: string, ...args: string[]) => Promise<unknown>>;

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** A connected ioredis client or cluster; the store owns it from now on and `close()` quits it. */
  redis: Redis | Cluster;
  /** Put before every key, `cs:` by default. Without braces, so it never changes a key's hash slot. */
  prefix?: string;
}

/** SHA-1 of each multi-key script, as EVALSHA names it; computed on first use. */
const SHAS: Partial<Record<keyof typeof SCRIPTS, string>> = {};

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
  readonly #redis: Redis | Cluster;
  readonly #scripts: Scripted;
  readonly #prefix: string;

  constructor(options: RedisStoreOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix ?? 'cs:';
    if (/[{}]/.test(this.#prefix)) throw new TypeError('RedisStore prefix must not contain braces');
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      // A multi-key script runs through `#evalMultiKey` instead.
      if (!MULTI_KEY_SCRIPTS.has(name as keyof typeof SCRIPTS)) this.#redis.defineCommand(name, { lua, numberOfKeys: 1 });
    }
    this.#redis.defineCommand('countersignStreamConsumerRemove', { lua: STREAM_CONSUMER_REMOVE_LUA, numberOfKeys: 1 });
    this.#scripts = this.#redis as unknown as Scripted;
    registerGuard(this, this.#redis);
  }

  /**
   * Runs one of {@link MULTI_KEY_SCRIPTS}: EVALSHA through `call`, and EVAL once when Redis does not
   * have it cached (NOSCRIPT), which caches it. Not through `defineCommand`: a script defined
   * without a fixed key count takes the count as its first argument, and ioredis' auto-pipelining
   * groups a defined script's calls by the slot of that first argument (the slot of "2", not of the
   * stream key), so on a cluster two appends of one tick for two tenants shared a pipeline and
   * failed ("All keys in the pipeline should belong to the same slots allocation group"). For
   * EVALSHA and EVAL ioredis knows which arguments are keys, and groups by the first one.
   */
  async #evalMultiKey(name: keyof typeof SCRIPTS, keys: string[], args: string[]): Promise<unknown> {
    const lua = SCRIPTS[name];
    const sha = (SHAS[name] ??= createHash('sha1').update(lua).digest('hex'));
    try {
      return await this.#redis.call('EVALSHA', sha, String(keys.length), ...keys, ...args);
    } catch (error) {
      if (replyCode(error) !== 'NOSCRIPT') throw error;
      return this.#redis.call('EVAL', lua, String(keys.length), ...keys, ...args);
    }
  }

  #key(key: string): string {
    return this.#prefix + key;
  }

  async get(key: string): Promise<string | null> {
    return this.#redis.get(this.#key(key));
  }

  async set(key: string, value: string, options: { ttlSeconds?: number; onlyIfAbsent?: boolean } = {}): Promise<boolean> {
    const args: (string | number)[] = options.ttlSeconds === undefined ? [] : ['PX', ttlMs(options.ttlSeconds)];
    if (options.onlyIfAbsent) args.push('NX');
    // SET … NX PX is one command: the value and its expiry are written together or not at all.
    const reply = await this.#redis.call('SET', this.#key(key), value, ...args);
    return reply === 'OK';
  }

  async take(key: string): Promise<string | null> {
    // GETDEL (Redis ≥ 6.2), not GET then DEL: two concurrent takers cannot both read the value.
    return this.#redis.getdel(this.#key(key));
  }

  async replace(key: string, expected: string, value: string): Promise<boolean> {
    return (await this.#scripts.countersignReplace(this.#key(key), expected, value)) === 1;
  }

  async delete(key: string): Promise<boolean> {
    return (await this.#redis.del(this.#key(key))) > 0;
  }

  async time(): Promise<number> {
    const [seconds, micros] = (await this.#redis.time()) as [string | number, string | number];
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  /** @throws RangeError when `fields` is empty: Redis keeps no empty hash. */
  async hashCreate(key: string, fields: Fields, ttlSeconds: number): Promise<boolean> {
    if (Object.keys(fields).length === 0) throw new RangeError('hashCreate needs at least one field');
    const reply = await this.#scripts.countersignHashCreate(this.#key(key), String(ttlMs(ttlSeconds)), ...pairs(fields));
    return reply === 1;
  }

  async hashGet(key: string): Promise<Fields | null> {
    // Redis keeps no empty hash, so an empty reply means there is no record.
    const fields = await this.#redis.hgetall(this.#key(key));
    return Object.keys(fields).length === 0 ? null : { ...fields };
  }

  async hashGetField(key: string, field: string): Promise<string | null> {
    return this.#redis.hget(this.#key(key), field);
  }

  async hashLength(key: string): Promise<number> {
    return this.#redis.hlen(this.#key(key));
  }

  async hashSet(key: string, fields: Fields, ttlSeconds?: number): Promise<void> {
    const args = pairs(fields);
    if (ttlSeconds === undefined) {
      if (args.length > 0) await this.#redis.hset(this.#key(key), ...args);
    } else if (args.length > 0) {
      await this.#scripts.countersignHashSetTtl(this.#key(key), String(ttlMs(ttlSeconds)), ...args);
    } else {
      await this.#redis.pexpire(this.#key(key), ttlMs(ttlSeconds));
    }
  }

  async hashDelete(key: string, field: string): Promise<boolean> {
    return (await this.#redis.hdel(this.#key(key), field)) > 0;
  }

  async compareAndSet(key: string, guards: Guard[], set: Fields, options: CompareAndSetOptions = {}): Promise<CasResult> {
    const ttl = options.ttlSeconds === undefined ? '' : String(ttlMs(options.ttlSeconds));
    const notAfter = options.notAfterMs === undefined ? '' : String(Math.floor(options.notAfterMs));
    const flatGuards = guards.flatMap((g) => [g.field, g.op, 'value' in g ? String(g.value) : '']);
    const increments = checkIncrements(options.increments);
    const flatIncrements = increments.flatMap((inc) => [inc.field, String(inc.by), String(inc.max)]);
    const reply = (await this.#scripts.countersignCompareAndSet(this.#key(key), ttl, notAfter, options.outbox ?? '', String(guards.length), ...flatGuards, String(increments.length), ...flatIncrements, ...pairs(set))) as [string, number?, string[]?];
    if (reply[0] === 'late') throw new LateSwapError();
    if (reply[0] === 'missing') return { ok: false, fields: null, failedGuard: -1 };
    const fields = toFields(reply[2] ?? []);
    return reply[0] === 'ok' ? { ok: true, fields } : { ok: false, fields, failedGuard: reply[1] ?? -1 };
  }

  async hashThrottle(key: string, rule: ThrottleRule): Promise<ThrottleResult> {
    const { nowMs, intervalField, nextAtField, unitMs, defaultInterval, earlyIncrement, leewayMs } = checkThrottleRule(rule);
    const args = [nowMs, leewayMs, intervalField, nextAtField, unitMs, defaultInterval, earlyIncrement].map(String);
    const reply = (await this.#scripts.countersignHashThrottle(this.#key(key), ...args)) as [ThrottleResult['status'], string[]?];
    return reply[0] === 'missing' ? { status: 'missing', fields: null } : { status: reply[0], fields: toFields(reply[1] ?? []) };
  }

  async windowAdd(key: string, entry: WindowEntry): Promise<WindowResult> {
    const { amounts, maxAmounts } = checkWindowEntry(entry);
    const args = [entry.nowMs, entry.windowMs, entry.member, entry.maxCount, amounts.length, ...amounts.flat(), maxAmounts.length, ...maxAmounts.flat()].map(String);
    const [verdict, count, ...flat] = (await this.#scripts.countersignWindowAdd(this.#key(key), ...args)) as [string, number, ...string[]];
    const totals: Record<string, number> = {};
    for (let i = 0; i + 1 < flat.length; i += 2) totals[flat[i]!] = Number(flat[i + 1]);
    return verdict === 'ok' ? { ok: true, count, totals } : { ok: false, count, totals, exceeded: verdict as 'count' | 'amount' };
  }

  async windowRemove(key: string, member: string): Promise<boolean> {
    checkWindowMember(member);
    return (await this.#scripts.countersignWindowRemove(this.#key(key), member)) === 1;
  }

  async sortedWindowAdd(key: string, entry: SortedWindowEntry): Promise<SortedWindowResult> {
    const { score } = checkWindowEntry(entry);
    const [ok, count] = (await this.#scripts.countersignSortedWindowAdd(
      this.#key(key),
      String(entry.nowMs),
      String(entry.windowMs),
      entry.member,
      scoreArg(score),
      String(entry.maxCount),
      scoreArg(entry.nowMs - entry.windowMs),
    )) as [number, number];
    return { ok: ok === 1, count };
  }

  async sortedWindowMembers(key: string, nowMs: number, windowMs: number): Promise<string[]> {
    checkSortedArguments(nowMs - windowMs);
    return (await this.#redis.call('ZRANGE', this.#key(key), `(${scoreArg(nowMs - windowMs)}`, '+inf', 'BYSCORE')) as string[];
  }

  async rateLimit(key: string, entry: RateEntry): Promise<RateResult> {
    const { step, span } = rateSteps(entry);
    const over = Number(await this.#scripts.countersignRateLimit(this.#key(key), String(entry.nowMs), String(step), String(span), entry.peek ? '1' : '0'));
    return { ok: over === 0, retryAfterMs: over };
  }

  async setAdd(key: string, member: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.#redis.sadd(this.#key(key), member);
    else await this.#scripts.countersignSetAddTtl(this.#key(key), String(ttlMs(ttlSeconds)), member);
  }

  async setRemove(key: string, member: string): Promise<void> {
    await this.#redis.srem(this.#key(key), member);
  }

  async setMembers(key: string): Promise<string[]> {
    return this.#redis.smembers(this.#key(key));
  }

  async sortedAdd(key: string, member: string, score: number, ttlSeconds?: number): Promise<void> {
    checkSortedArguments(score);
    if (ttlSeconds === undefined) await this.#redis.zadd(this.#key(key), scoreArg(score), member);
    else await this.#scripts.countersignSortedAddTtl(this.#key(key), String(ttlMs(ttlSeconds)), scoreArg(score), member);
  }

  async sortedRangeByScore(key: string, maxScore: number, limit: number): Promise<string[]> {
    checkSortedArguments(maxScore, limit);
    // ZRANGE … BYSCORE LIMIT (Redis ≥ 6.2, as GETDEL): O(log N + limit), so reading the due
    // deadlines costs what is due, however many requests are alive.
    return (await this.#redis.call('ZRANGE', this.#key(key), '-inf', scoreArg(maxScore), 'BYSCORE', 'LIMIT', '0', String(limit))) as string[];
  }

  async sortedRangeAfter(key: string, after: string | null, limit: number): Promise<string[]> {
    checkSortedArguments(0, limit);
    return (await this.#redis.call('ZRANGE', this.#key(key), after === null ? '-' : `(${after}`, '+', 'BYLEX', 'LIMIT', '0', String(limit))) as string[];
  }

  async sortedRemove(key: string, member: string): Promise<boolean> {
    return (await this.#redis.zrem(this.#key(key), member)) > 0;
  }



  async streamAppend(key: string, fields: Fields): Promise<string> {
    if (Object.keys(fields).length === 0) throw new RangeError('streamAppend needs at least one field');
    return (await this.#redis.xadd(this.#key(key), '*', ...pairs(fields))) as string;
  }


  async streamAppendManyAfter(key: string, lastId: string | null, entries: Fields[], indexes: readonly (StreamIndex | null | undefined)[] = []): Promise<StreamAppendManyResult> {
    checkManyEntries(key, entries, indexes);
    // KEYS[1] is the stream; each distinct index gets one KEYS place after it.
    const indexKeys: string[] = [];
    const args = entries.flatMap((fields, i) => {
      const flat = pairs(fields);
      const index = indexes[i];
      let position = 0;
      if (index) {
        const indexKey = this.#key(index.key);
        position = indexKeys.indexOf(indexKey) + 2;
        if (position === 1) position = indexKeys.push(indexKey) + 1;
      }
      return [String(flat.length / 2), String(position), index ? String(ttlMs(index.ttlSeconds)) : '', index?.once ?? '', ...flat];
    });
    const reply = (await this.#evalMultiKey('countersignStreamAppendManyAfter', [this.#key(key), ...indexKeys], [lastId ?? '', ...args])) as [string, (string | string[])?, string[]?];
    if (reply[0] === 'ok') return { ok: true, ids: reply[1] as string[] };
    if (reply[0] === 'duplicate') return { ok: false, duplicate: Number(reply[1]) };
    return { ok: false, last: reply[1] === undefined ? null : { id: reply[1] as string, fields: toFields(reply[2] ?? []) } };
  }

  async streamGet(key: string, ids: readonly string[]): Promise<(StreamEntry | null)[]> {
    for (const id of ids) parseStreamId(id);
    // One XRANGE per id; auto-pipelining sends them together, so this is one round trip.
    const replies = await Promise.all(ids.map((id) => this.#redis.call('XRANGE', this.#key(key), id, id, 'COUNT', '1') as Promise<[string, string[]][]>));
    return replies.map((reply) => (reply[0] ? { id: reply[0][0], fields: toFields(reply[0][1]) } : null));
  }

  async streamIndexRead(key: string): Promise<string[]> {
    try {
      const text = await this.#redis.get(this.#key(key));
      return text ? indexIds(text.split(' ')) : [];
    } catch (error) {
      // A list: an index written before indexes were strings, until its next append converts it.
      if (replyCode(error) === 'WRONGTYPE') return this.#redis.lrange(this.#key(key), 0, -1);
      throw error;
    }
  }

  async streamRange(key: string, afterId?: string, count?: number): Promise<StreamEntry[]> {
    if (count !== undefined && !(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
    // `(id` is an exclusive start (Redis ≥ 6.2), so a page never repeats the last entry of the one before.
    const args = [this.#key(key), afterId === undefined ? '-' : `(${afterId}`, '+', ...(count === undefined ? [] : ['COUNT', String(count)])];
    const reply = (await this.#redis.call('XRANGE', ...args)) as [string, string[]][];
    return reply.map(([id, flat]) => ({ id, fields: toFields(flat) }));
  }

  async streamTrimBefore(key: string, minId: string, mark: StreamMark): Promise<StreamTrimResult> {
    checkTrim(key, minId, mark);
    const reply = (await this.#evalMultiKey('countersignStreamTrimBefore', [this.#key(key), this.#key(mark.key)], [minId, mark.ifId ?? '', ...pairs(mark.fields)])) as [string, number | string[]];
    if (reply[0] === 'ok') return { ok: true, trimmed: Number(reply[1]) };
    const flat = reply[1] as string[];
    return { ok: false, mark: flat.length > 0 ? toFields(flat) : null };
  }

  async streamGroupCreate(key: string, group: string): Promise<boolean> {
    try {
      // From id 0, not `$`: entries appended before the group existed (jobs enqueued before any
      // consumer started) are work too.
      await this.#redis.call('XGROUP', 'CREATE', this.#key(key), group, '0', 'MKSTREAM');
      return true;
    } catch (error) {
      if (replyCode(error) === 'BUSYGROUP') return false;
      throw error;
    }
  }

  async streamGroupRead(key: string, group: string, consumer: string, count: number): Promise<StreamEntry[] | null> {
    checkCount(count);
    try {
      // No BLOCK: a blocked read would hold the connection every other command of this instance
      // shares (ioredis pipelines them all on one socket). The job queue polls, and wakes itself.
      const reply = await this.#redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', String(count), 'STREAMS', this.#key(key), '>');
      return streamReadEntries(reply).map(([id, flat]) => ({ id, fields: toFields(flat) }));
    } catch (error) {
      if (replyCode(error) === 'NOGROUP') return null;
      throw error;
    }
  }

  async streamAck(key: string, group: string, ids: string[]): Promise<number> {
    if (ids.length === 0) return 0;
    return Number(await this.#scripts.countersignStreamAckDelete(this.#key(key), group, ...ids));
  }

  async streamClaim(key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): Promise<StreamClaimResult | null> {
    checkCount(options.count);
    if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
    try {
      // XAUTOCLAIM (Redis ≥ 6.2; the list of deleted ids since 7.0): the idle check and the
      // transfer are one step, so two instances claiming at once never both take an entry.
      const args = [this.#key(key), group, consumer, String(options.minIdleMs), options.cursor ?? '0-0', 'COUNT', String(options.count)];
      const [cursor, claimed, deleted] = (await this.#redis.call('XAUTOCLAIM', ...args)) as [string, ([string, string[] | null] | null)[], string[]?];
      const entries = claimed.filter((entry): entry is [string, string[]] => Array.isArray(entry?.[1])).map(([id, flat]) => ({ id, fields: toFields(flat) }));
      return { cursor, entries, deleted: deleted ?? [] };
    } catch (error) {
      if (replyCode(error) === 'NOGROUP') return null;
      throw error;
    }
  }

  async streamConsumers(key: string, group: string): Promise<StreamConsumer[]> {
    try {
      const reply = (await this.#redis.call('XINFO', 'CONSUMERS', this.#key(key), group)) as (string | number)[][];
      return reply.map((flat) => {
        const info = new Map<string, string | number>();
        for (let i = 0; i + 1 < flat.length; i += 2) info.set(String(flat[i]), flat[i + 1]!);
        return { name: String(info.get('name')), pending: Number(info.get('pending')), idleMs: Number(info.get('idle')) };
      });
    } catch (error) {
      // No stream: ERR no such key; no group: NOGROUP.
      if (replyCode(error) === 'NOGROUP' || /no such key/i.test((error as Error).message)) return [];
      throw error;
    }
  }

  async streamConsumerRemove(key: string, group: string, consumer: string, options: { minIdleMs: number }): Promise<boolean> {
    if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
    const script = (this.#redis as unknown as Record<string, (key: string, ...args: string[]) => Promise<unknown>>).countersignStreamConsumerRemove!;
    return Number(await script.call(this.#redis, this.#key(key), group, consumer, String(options.minIdleMs))) === 1;
  }

  async streamLength(key: string): Promise<number> {
    return Number(await this.#redis.call('XLEN', this.#key(key)));
  }

  async streamPendingCount(key: string, group: string): Promise<number> {
    try {
      const [count] = (await this.#redis.call('XPENDING', this.#key(key), group)) as [number, ...unknown[]];
      return Number(count);
    } catch (error) {
      if (replyCode(error) === 'NOGROUP') return 0;
      throw error;
    }
  }

  async close(): Promise<void> {
    if (this.#redis.status !== 'end') await this.#redis.quit();
  }
}

// Retries, the store deadline and 503s for every operation, around the methods above.
guardStoreMethods(RedisStore.prototype);

/**
 * The entries of a one-stream XREAD(GROUP) reply: `[[key, entries]]` in RESP2, `[key, entries]`
 * when the connection speaks RESP3 (a map, which ioredis flattens), null when nothing was read.
 */
function streamReadEntries(reply: unknown): [string, string[]][] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const entries = typeof reply[0] === 'string' ? reply[1] : (reply[0] as unknown[])[1];
  return Array.isArray(entries) ? (entries as [string, string[]][]) : [];
}

/** The first word of a Redis error reply (`NOGROUP`, `BUSYGROUP`), or null for any other error. */
function replyCode(error: unknown): string | null {
  return error instanceof Error && error.name === 'ReplyError' ? (/^([A-Z]+)\b/.exec(error.message)?.[1] ?? null) : null;
}

/** Refuses a count that is not a positive whole number before Redis does. */
function checkCount(count: number): void {
  if (!(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
}

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

/** Seconds to the milliseconds PX and PEXPIRE take, so fractional TTLs are not truncated. */
function ttlMs(ttlSeconds: number): number {
  if (!Number.isFinite(ttlSeconds) || ttlSeconds <= 0) throw new RangeError(`TTL must be a positive number of seconds, got ${ttlSeconds}`);
  return Math.ceil(ttlSeconds * 1000);
}

/** A score as Redis reads it: infinities spelled `+inf` / `-inf`, finite numbers in full. */
function scoreArg(score: number): string {
  if (score === Number.POSITIVE_INFINITY) return '+inf';
  if (score === Number.NEGATIVE_INFINITY) return '-inf';
  return String(score);
}

function pairs(fields: Fields): string[] {
  return Object.entries(fields).flat();
}

function toFields(flat: string[]): Fields {
  const fields: Fields = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}

