import type { Redis } from 'ioredis';
import { benchConfig } from '../config.ts';
import { backchannelBodies } from '../countersign/actions.ts';
import { mapLimit } from '../countersign/api.ts';
import { usedMemory } from '../infra/redis.ts';
import { startTwin } from './in-process.ts';

/** Redis memory per pending request, and what holds it. */
export interface MemoryResult {
  requests: number;
  usedMemoryBefore: number;
  usedMemoryAfter: number;
  bytesPerPendingRequest: number;
  /** `MEMORY USAGE` summed per kind of key (see `kindOf`), bytes per request, largest first. */
  byKind: { kind: string; keys: number; bytesPerRequest: number }[];
  /**
   * How a sample key of each kind is encoded: `req` (a request's hash; listpack while every value is
   * at most 64 bytes), `auditidx` (a request's audit chain ids, one string: embstr while short), and the windows.
   */
  encodings: Record<string, string>;
  /**
   * One request's hash up close: its fields, the bytes of their names and values, what Redis
   * holds for it, and what the same hash takes as a listpack (hash-max-listpack-value raised above
   * its longest value), the compact encoding Redis uses for small hashes of short values.
   */
  requestHash?: { fields: number; payloadBytes: number; longestValue: number; bytes: number; encoding: string; listpackBytes: number };
  setup: string;
}

/**
 * A key's kind: its name with the ids taken out, e.g. `req:{…}` for one request's hash,
 * `auditlog:{tenant}` for a tenant's audit chain (the one copy of every event),
 * `auditidx:{tenant}:…` for one request's string of chain ids, `pending:{…}` for a user's
 * pending requests.
 */
function kindOf(key: string): string {
  const match = /^([^{]*)\{([^}]*)\}(.*)$/.exec(key);
  if (!match) return key;
  const [, head, tag, tail] = match;
  const tagKind = tag!.includes(':') ? '…' : /^mem-\d+$/.test(tag!) ? 'tenant' : tag;
  return `${head}{${tagKind}}${/^:[a-z-]+$/.test(tail!) ? tail : tail ? ':…' : ''}`;
}

/** Sums `MEMORY USAGE` of every key under `prefix`, grouped by the key's kind. */
async function usageByKind(redis: Redis, prefix: string): Promise<Map<string, { keys: number; bytes: number }>> {
  const kinds = new Map<string, { keys: number; bytes: number }>();
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    const sizes = await Promise.all(batch.map((key) => redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0') as Promise<number | null>));
    batch.forEach((key, i) => {
      const kind = kindOf(key.slice(prefix.length));
      const entry = kinds.get(kind) ?? { keys: 0, bytes: 0 };
      entry.keys++;
      entry.bytes += sizes[i] ?? 0;
      kinds.set(kind, entry);
    });
  } while (cursor !== '0');
  return kinds;
}

/** Measures one request hash as stored and as a listpack copy (the copy is deleted, the setting restored). */
async function inspectRequestHash(redis: Redis, prefix: string): Promise<MemoryResult['requestHash'] | null> {
  let key: string | undefined;
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}req:{*`, 'COUNT', 1000);
    cursor = next;
    key = batch[0];
  } while (!key && cursor !== '0');
  if (!key) return null;
  const fields = await redis.hgetall(key);
  const entries = Object.entries(fields);
  const longestValue = Math.max(...entries.map(([, value]) => Buffer.byteLength(value)));
  const payloadBytes = entries.reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + Buffer.byteLength(value), 0);
  const bytes = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
  const encoding = String(await redis.call('OBJECT', 'ENCODING', key));
  const setting = ((await redis.call('CONFIG', 'GET', 'hash-max-listpack-value')) as string[])[1]!;
  const copy = `${prefix}listpack-copy`;
  try {
    await redis.call('CONFIG', 'SET', 'hash-max-listpack-value', String(longestValue + 1));
    await redis.hset(copy, fields);
    const listpackBytes = Number(await redis.call('MEMORY', 'USAGE', copy, 'SAMPLES', '0'));
    return { fields: entries.length, payloadBytes, longestValue, bytes, encoding, listpackBytes };
  } finally {
    await redis.del(copy);
    await redis.call('CONFIG', 'SET', 'hash-max-listpack-value', setting);
  }
}

/**
 * INFO memory `used_memory` before and after creating `benchConfig.memoryRequests` pending
 * requests through `/bc-authorize` of an in-process instance (the server's key prefix `cs:`, on a Redis of its own, the shipped
 * window lengths, pushes accepted by a fake push service so their bookkeeping is stored), divided
 * by the number of requests. Everything a pending request leaves in Redis counts: its hash, its
 * audit events (in the tenant's chain) and their index, its index entries and its places in the
 * limit windows.
 */
export async function measureMemory(redis: Redis, redisUrl: string, policyFile: string | null): Promise<MemoryResult> {
  // The prefix the server runs with (`REDIS_PREFIX` in server/src/main.ts): it is in the name of every
  // key a request writes, so another one would measure another deployment. This Redis is the
  // measurement's own, so nothing else is under it.
  const prefix = 'cs:';
  const twin = await startTwin(redisUrl, prefix, { policyFile });
  // Eight tenants of 25 users and 5 clients each: the audit chain of one tenant takes one event at
  // a time (see the audit chain measurement), which would only make this setup slow.
  const tenants = Array.from({ length: 8 }, (_, i) => `mem-${i}`);
  const plan: { tenant: string; users: string[]; clients: { authorization: string }[] }[] = [];
  for (const tenant of tenants) {
    const users = Array.from({ length: 25 }, (_, i) => `${tenant}-user-${i}`);
    const clients = await twin.createClients(5, tenant);
    await twin.enrollUsers(users, true, tenant);
    plan.push({ tenant, users, clients });
  }
  const count = benchConfig.memoryRequests;
  const perTenant = plan.map(({ users }, t) => backchannelBodies(users, Math.ceil(count / plan.length), `mem${t}`).items);
  const items = Array.from({ length: count }, (_, i) => ({ tenant: plan[i % plan.length]!, body: perTenant[i % plan.length]![Math.floor(i / plan.length)]!.body! }));
  await twin.deps.background.drain();
  const baseline = await usageByKind(redis, prefix);
  const before = await usedMemory(redis);
  let failed = 0;
  await mapLimit(items, 64, async (item, i) => {
    const clients = item.tenant.clients;
    const answer = await twin.call('POST', '/bc-authorize', { form: item.body, headers: { authorization: clients[i % clients.length]!.authorization } });
    if (answer.status !== 200) failed++;
  });
  await twin.deps.background.drain();
  const after = await usedMemory(redis);
  if (failed) throw new Error(`memory: ${failed} of ${count} requests were refused`);
  const kinds = await usageByKind(redis, prefix);
  const byKind = [...kinds.entries()]
    .map(([kind, { keys, bytes }]) => ({ kind, keys: keys - (baseline.get(kind)?.keys ?? 0), bytesPerRequest: Math.round((bytes - (baseline.get(kind)?.bytes ?? 0)) / count) }))
    .filter((entry) => entry.bytesPerRequest > 0)
    .sort((a, b) => b.bytesPerRequest - a.bytesPerRequest);
  const encodings: Record<string, string> = {};
  const samples: Record<string, string> = {
    req: 'req:{mem-0:*',
    auditidx: 'auditidx:{mem-0}:*',
    'win:velocity-user': 'win:{mem-0:*}:velocity-user',
    'win:velocity-client': 'win:{mem-0:*}:velocity-client',
    pending: 'pending:{mem-0:*',
    pushes: 'pushes:{mem-0:*',
  };
  for (const [kind, pattern] of Object.entries(samples)) {
    let cursor = '0';
    do {
      const [next, sample] = await redis.scan(cursor, 'MATCH', `${prefix}${pattern}`, 'COUNT', 1000);
      cursor = next;
      if (sample[0]) {
        encodings[kind] = String(await redis.call('OBJECT', 'ENCODING', sample[0]));
        break;
      }
    } while (cursor !== '0');
  }
  const requestHash = await inspectRequestHash(redis, prefix);
  await twin.close();
  return {
    ...(requestHash ? { requestHash } : {}),
    requests: count,
    usedMemoryBefore: before,
    usedMemoryAfter: after,
    bytesPerPendingRequest: Math.round((after - before) / count),
    byKind,
    encodings,
    setup: `${count} requests through an in-process instance's /bc-authorize: 8 tenants of 25 users (one push subscription each) and 5 clients, the shipped policy's window lengths, pushes accepted by a fake push service`,
  };
}
