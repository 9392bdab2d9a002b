import type { PendingApproval, PendingApprovals } from './pending-approvals.ts';

/**
 * The Redis commands {@link createRedisPendingApprovals} uses, as an ioredis `Redis` (or
 * `Cluster`) instance has them. Typed here so the package needs no Redis client of its own.
 */
export interface PendingRedis {
  get(key: string): Promise<string | null>;
  mget(...keys: string[]): Promise<(string | null)[]>;
  set(key: string, value: string, mode: 'PX', milliseconds: number): Promise<unknown>;
  del(...keys: string[]): Promise<number>;
  zadd(key: string, score: number, member: string): Promise<unknown>;
  zrem(key: string, ...members: string[]): Promise<unknown>;
  zrangebyscore(key: string, min: number | string, max: number | string): Promise<string[]>;
  zremrangebyscore(key: string, min: number | string, max: number | string): Promise<unknown>;
}

/** Options of {@link createRedisPendingApprovals}. */
export interface RedisPendingApprovalsOptions {
  /**
   * Prefix of every key. One hash tag (`{…}`) keeps all of them in one Redis Cluster slot, which
   * `list`'s MGET needs. Default `countersign:{pending}:`; one prefix per agent deployment.
   */
  prefix?: string;
  /** Epoch milliseconds; `Date.now` by default. */
  now?: () => number;
}

/**
 * A {@link PendingApprovals} in Redis, for agents that restart or run as several processes: a
 * waiting call made again by the next process finds its approval, token included, instead of
 * asking the person a second time.
 *
 * Layout: `<prefix>call:<call_key>` holds the record as JSON, `<prefix>req:<auth_req_id>` the
 * call key, both expiring with the record (PX); `<prefix>index` is a sorted set of call keys by
 * `expires_at` for `list`. Writes are three commands and not atomic: a crash between them leaves
 * an index entry without a record, which every read skips.
 *
 * The records hold approval tokens (bearer secrets until redeemed): use a Redis that only the
 * agent can reach, with AUTH and TLS where it crosses a network.
 *
 * @param redis - an ioredis `Redis` or `Cluster` (or anything with the {@link PendingRedis} commands).
 */
export function createRedisPendingApprovals(redis: PendingRedis, options: RedisPendingApprovalsOptions = {}): PendingApprovals {
  const prefix = options.prefix ?? 'countersign:{pending}:';
  const now = options.now ?? (() => Date.now());
  const callKeyOf = (call_key: string) => `${prefix}call:${call_key}`;
  const requestKeyOf = (auth_req_id: string) => `${prefix}req:${auth_req_id}`;
  const indexKey = `${prefix}index`;

  function parse(text: string | null): PendingApproval | undefined {
    if (text === null) return undefined;
    const record = JSON.parse(text) as PendingApproval;
    return record.expires_at > now() ? record : undefined;
  }

  async function get(call_key: string) {
    return parse(await redis.get(callKeyOf(call_key)));
  }

  return {
    get,
    async getByRequest(auth_req_id) {
      const call_key = await redis.get(requestKeyOf(auth_req_id));
      const record = call_key === null ? undefined : await get(call_key);
      // The request key may outlive a replaced record of the same call: only its own counts.
      return record?.auth_req_id === auth_req_id ? record : undefined;
    },
    async put(record) {
      const ttl = Math.max(1, Math.ceil(record.expires_at - now()));
      await redis.set(callKeyOf(record.call_key), JSON.stringify(record), 'PX', ttl);
      await redis.set(requestKeyOf(record.auth_req_id), record.call_key, 'PX', ttl);
      await redis.zadd(indexKey, record.expires_at, record.call_key);
      await redis.zremrangebyscore(indexKey, '-inf', now());
    },
    async delete(call_key) {
      const record = await get(call_key);
      await redis.del(callKeyOf(call_key), ...(record ? [requestKeyOf(record.auth_req_id)] : []));
      await redis.zrem(indexKey, call_key);
    },
    async list() {
      const keys = await redis.zrangebyscore(indexKey, `(${now()}`, '+inf');
      if (keys.length === 0) return [];
      const texts = await redis.mget(...keys.map(callKeyOf));
      return texts.map(parse).filter((record): record is PendingApproval => record !== undefined);
    },
  };
}
