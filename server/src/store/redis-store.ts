import { type Cluster, Redis, type RedisOptions } from 'ioredis';
import type { CasResult, Fields, Guard, PollResult, Store } from './types.ts';

// Lua that reads and writes numbers the way JavaScript does, so guards and the poll throttle
// decide exactly as MemoryStore's `Number(field)` and `String(number)` do. Plain `tonumber`
// differs at the edges ('' is nil in Lua but 0 in JS; 'inf' is a number in Lua but NaN in JS).
const NUMBERS = `
local function num(s)
  s = string.match(s, '^%s*(.-)%s*$')
  if s == '' then return 0 end
  local sign, body = string.match(s, '^([+-]?)(.*)$')
  if body == 'Infinity' then return sign == '-' and -math.huge or math.huge end
  local m = string.match(body, '^(.-)[eE][+-]?%d+$') or body
  if string.find(m, '^%d+%.?%d*$') or string.find(m, '^%.%d+$') then return tonumber(s) end
  local base = ({x = 16, X = 16, o = 8, O = 8, b = 2, B = 2})[string.sub(body, 2, 2)]
  if sign ~= '' or not base or string.sub(body, 1, 1) ~= '0' or #body < 3 then return 0/0 end
  local n = 0
  for i = 3, #body do
    local d = tonumber(string.sub(body, i, i), base)
    if not d then return 0/0 end
    n = n * base + d
  end
  return n
end
local function str(n)
  if n ~= n then return 'NaN' end
  if n == math.huge then return 'Infinity' elseif n == -math.huge then return '-Infinity' end
  if n == 0 then return '0' end
  if n == math.floor(n) and math.abs(n) < 2^53 then return string.format('%.0f', n) end
  for p = 15, 17 do
    local s = string.format('%.' .. p .. 'g', n)
    if tonumber(s) == n then return s end
  end
end
`;

/** Each script touches KEYS[1] only, so it runs on one Redis Cluster slot. */
const SCRIPTS = {
  // ARGV: ttl ms or '', guard count n, n × (field, op, value), then field/value pairs to write.
  // One script, because a read-check-write over several commands would let two redeemers both
  // see `approved` (DESIGN.md guarantee 7). Mirrors `guardHolds` in memory-store.ts.
  countersignCompareAndSet: `${NUMBERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local n = tonumber(ARGV[2])
for i = 0, n - 1 do
  local op, want = ARGV[4 + i * 3], ARGV[5 + i * 3]
  local have = redis.call('HGET', KEYS[1], ARGV[3 + i * 3])
  local holds = false
  if op == 'absent' then holds = not have
  elseif not have then holds = false
  elseif op == 'present' then holds = true
  elseif op == 'eq' then holds = have == want
  elseif op == 'ne' then holds = have ~= want
  elseif op == 'lt' then holds = num(have) < tonumber(want)
  elseif op == 'gt' then holds = num(have) > tonumber(want) end
  if not holds then return {'failed', i, redis.call('HGETALL', KEYS[1])} end
end
if #ARGV >= 3 + n * 3 then redis.call('HSET', KEYS[1], unpack(ARGV, 3 + n * 3)) end
if ARGV[1] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
return {'ok', -1, redis.call('HGETALL', KEYS[1])}`,
  // ARGV: ttl ms, then field/value pairs. HSETNX guards one field only, and a separate EXPIRE
  // could be lost in a crash and leave a record that never expires.
  countersignHashCreate: `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], unpack(ARGV, 2))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1`,
  // ARGV: now ms, leeway ms (CIBA Core §7.3 interval, §11 slow_down). Concurrent polls are
  // serialised here, so only one of them can see the old `next_poll_at`.
  countersignPollThrottle: `${NUMBERS}
if redis.call('EXISTS', KEYS[1]) == 0 then return {'missing'} end
local now, leeway = tonumber(ARGV[1]), tonumber(ARGV[2])
local interval = num(redis.call('HGET', KEYS[1], 'interval') or '5')
local nextAt = redis.call('HGET', KEYS[1], 'next_poll_at')
local early = nextAt and now < num(nextAt) - leeway
if early then interval = interval + 5 end
redis.call('HSET', KEYS[1], 'interval', str(interval), 'next_poll_at', str(now + interval * 1000))
return {early and 'slow_down' or 'ok', redis.call('HGETALL', KEYS[1])}`,
  // ARGV: ttl ms, then the command's arguments: the write and its new TTL land together.
  countersignHashSetTtl: withTtl('HSET'),
  countersignSetAddTtl: withTtl('SADD'),
  countersignListAppendTtl: withTtl('RPUSH'),
} as const;

function withTtl(command: string): string {
  return `redis.call('${command}', KEYS[1], unpack(ARGV, 2))\nredis.call('PEXPIRE', KEYS[1], ARGV[1])`;
}

type Scripted = Record<keyof typeof SCRIPTS, (key: string, ...args: string[]) => Promise<unknown>>;

/** Options of {@link RedisStore}. */
export interface RedisStoreOptions {
  /** A connected ioredis client or cluster; the store owns it from now on and `close()` quits it. */
  redis: Redis | Cluster;
  /** Put before every key, `cs:` by default. Without braces, so it never changes a key's hash slot. */
  prefix?: string;
}

/**
 * The Redis {@link Store}, the production store (DESIGN.md "Storage"). Every multi-step
 * operation is one Lua script over one key, so it is atomic and Redis Cluster safe. TTLs are
 * whole or fractional seconds, sent to Redis in milliseconds.
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
    for (const [name, lua] of Object.entries(SCRIPTS)) this.#redis.defineCommand(name, { lua, numberOfKeys: 1 });
    this.#scripts = this.#redis as unknown as Scripted;
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

  async delete(key: string): Promise<boolean> {
    return (await this.#redis.del(this.#key(key))) > 0;
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

  async compareAndSet(key: string, guards: Guard[], set: Fields, options: { ttlSeconds?: number } = {}): Promise<CasResult> {
    const ttl = options.ttlSeconds === undefined ? '' : String(ttlMs(options.ttlSeconds));
    const flatGuards = guards.flatMap((g) => [g.field, g.op, 'value' in g ? String(g.value) : '']);
    const reply = (await this.#scripts.countersignCompareAndSet(this.#key(key), ttl, String(guards.length), ...flatGuards, ...pairs(set))) as [string, number?, string[]?];
    if (reply[0] === 'missing') return { ok: false, fields: null, failedGuard: -1 };
    const fields = toFields(reply[2] ?? []);
    return reply[0] === 'ok' ? { ok: true, fields } : { ok: false, fields, failedGuard: reply[1] ?? -1 };
  }

  async pollThrottle(key: string, nowMs: number, leewayMs = 0): Promise<PollResult> {
    const reply = (await this.#scripts.countersignPollThrottle(this.#key(key), String(nowMs), String(leewayMs))) as [PollResult['status'], string[]?];
    return reply[0] === 'missing' ? { status: 'missing', fields: null } : { status: reply[0], fields: toFields(reply[1] ?? []) };
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

  async listAppend(key: string, value: string, ttlSeconds?: number): Promise<void> {
    if (ttlSeconds === undefined) await this.#redis.rpush(this.#key(key), value);
    else await this.#scripts.countersignListAppendTtl(this.#key(key), String(ttlMs(ttlSeconds)), value);
  }

  async listRange(key: string): Promise<string[]> {
    return this.#redis.lrange(this.#key(key), 0, -1);
  }

  async close(): Promise<void> {
    if (this.#redis.status !== 'end') await this.#redis.quit();
  }
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

function pairs(fields: Fields): string[] {
  return Object.entries(fields).flat();
}

function toFields(flat: string[]): Fields {
  const fields: Fields = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i] as string] = flat[i + 1] as string;
  return fields;
}
