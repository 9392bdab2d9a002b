/**
 * A Redis adapter for node-oidc-provider, so the peer can also be measured keeping its state where
 * Countersign keeps its own: in Redis, shared by instances and surviving a restart. It follows the
 * shape of the example Redis adapter in node-oidc-provider's repository (`example/adapters/redis.js`):
 * one key per model instance (a JSON string, or a hash with `payload` and `consumed` for the models
 * that are consumed), a list per grant holding its tokens' keys (for `revokeByGrantId`), and
 * indexes for `userCode` and `uid`; each `upsert` is one MULTI. The provider calls `find`,
 * `upsert`, `consume` and `destroy` as it would with any adapter.
 *
 * @see node-oidc-provider docs, "adapter"; https://github.com/panva/node-oidc-provider (example/adapters/redis.js)
 */
import type { Redis } from 'ioredis';

/** Models whose instances belong to a grant (revoked with it). */
const GRANTABLE = new Set(['AccessToken', 'AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

/** Models that are consumed once (kept as a hash so `consume` is one HSET). */
const CONSUMABLE = new Set(['AuthorizationCode', 'RefreshToken', 'DeviceCode', 'BackchannelAuthenticationRequest']);

type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string };

const grantKeyFor = (id: string) => `peer:grant:${id}`;
const userCodeKeyFor = (userCode: string) => `peer:userCode:${userCode}`;
const uidKeyFor = (uid: string) => `peer:uid:${uid}`;

/** Makes the adapter class the provider's `adapter` option takes, on one ioredis connection. */
export function redisAdapter(client: Redis) {
  return class RedisAdapter {
    constructor(private readonly name: string) {}

    private key(id: string): string {
      return `peer:${this.name}:${id}`;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const key = this.key(id);
      const multi = client.multi();
      if (CONSUMABLE.has(this.name)) multi.hset(key, { payload: JSON.stringify(payload) });
      else multi.set(key, JSON.stringify(payload));
      if (expiresIn) multi.expire(key, expiresIn);
      if (GRANTABLE.has(this.name) && payload.grantId) {
        const grantKey = grantKeyFor(payload.grantId);
        multi.rpush(grantKey, key);
        // The grant's list lives as long as its longest-lived member.
        const ttl = await client.ttl(grantKey);
        if (expiresIn && expiresIn > ttl) multi.expire(grantKey, expiresIn);
      }
      if (payload.userCode) {
        multi.set(userCodeKeyFor(payload.userCode), id);
        if (expiresIn) multi.expire(userCodeKeyFor(payload.userCode), expiresIn);
      }
      if (payload.uid) {
        multi.set(uidKeyFor(payload.uid), id);
        if (expiresIn) multi.expire(uidKeyFor(payload.uid), expiresIn);
      }
      await multi.exec();
    }

    async find(id: string): Promise<Payload | undefined> {
      if (CONSUMABLE.has(this.name)) {
        const data = await client.hgetall(this.key(id));
        if (!data.payload) return undefined;
        const { payload, ...rest } = data;
        return { ...rest, ...(JSON.parse(payload) as Payload), ...(rest.consumed ? { consumed: Number(rest.consumed) } : {}) };
      }
      const data = await client.get(this.key(id));
      return data ? (JSON.parse(data) as Payload) : undefined;
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      const id = await client.get(userCodeKeyFor(userCode));
      return id ? this.find(id) : undefined;
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const id = await client.get(uidKeyFor(uid));
      return id ? this.find(id) : undefined;
    }

    async consume(id: string): Promise<void> {
      await client.hset(this.key(id), 'consumed', Math.floor(Date.now() / 1000));
    }

    async destroy(id: string): Promise<void> {
      await client.del(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      const multi = client.multi();
      const tokens = await client.lrange(grantKeyFor(grantId), 0, -1);
      for (const token of tokens) multi.del(token);
      multi.del(grantKeyFor(grantId));
      await multi.exec();
    }
  };
}
