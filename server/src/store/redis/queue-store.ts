/** The `QueueStore` operations of `RedisStore` (redis-store.ts): consumer groups over a stream. */
import type { StreamClaimResult, StreamConsumer, StreamEntry } from '../types.ts';
import { replyCode, toFields } from './replies.ts';
import type { RedisState } from './state.ts';

export async function streamGroupCreate(s: RedisState, key: string, group: string): Promise<boolean> {
  try {
    // From id 0, not `$`: entries appended before the group existed (jobs enqueued before any
    // consumer started) are work too.
    await s.redis.call('XGROUP', 'CREATE', s.key(key), group, '0', 'MKSTREAM');
    return true;
  } catch (error) {
    if (replyCode(error) === 'BUSYGROUP') return false;
    throw error;
  }
}

export async function streamGroupRead(s: RedisState, key: string, group: string, consumer: string, count: number): Promise<StreamEntry[] | null> {
  checkCount(count);
  try {
    // No BLOCK: a blocked read would hold the connection every other command of this instance
    // shares (ioredis pipelines them all on one socket). The job queue polls, and wakes itself.
    const reply = await s.redis.call('XREADGROUP', 'GROUP', group, consumer, 'COUNT', String(count), 'STREAMS', s.key(key), '>');
    return streamReadEntries(reply).map(([id, flat]) => ({ id, fields: toFields(flat) }));
  } catch (error) {
    if (replyCode(error) === 'NOGROUP') return null;
    throw error;
  }
}

export async function streamAck(s: RedisState, key: string, group: string, ids: string[]): Promise<number> {
  if (ids.length === 0) return 0;
  return Number(await s.scripts.countersignStreamAckDelete(s.key(key), group, ...ids));
}

export async function streamClaim(s: RedisState, key: string, group: string, consumer: string, options: { minIdleMs: number; count: number; cursor?: string }): Promise<StreamClaimResult | null> {
  checkCount(options.count);
  if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
  try {
    // XAUTOCLAIM (Redis ≥ 6.2; the list of deleted ids since 7.0): the idle check and the
    // transfer are one step, so two instances claiming at once never both take an entry.
    const args = [s.key(key), group, consumer, String(options.minIdleMs), options.cursor ?? '0-0', 'COUNT', String(options.count)];
    const [cursor, claimed, deleted] = (await s.redis.call('XAUTOCLAIM', ...args)) as [string, ([string, string[] | null] | null)[], string[]?];
    const entries = claimed.filter((entry): entry is [string, string[]] => Array.isArray(entry?.[1])).map(([id, flat]) => ({ id, fields: toFields(flat) }));
    return { cursor, entries, deleted: deleted ?? [] };
  } catch (error) {
    if (replyCode(error) === 'NOGROUP') return null;
    throw error;
  }
}

export async function streamConsumers(s: RedisState, key: string, group: string): Promise<StreamConsumer[]> {
  try {
    const reply = (await s.redis.call('XINFO', 'CONSUMERS', s.key(key), group)) as (string | number)[][];
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

export async function streamConsumerRemove(s: RedisState, key: string, group: string, consumer: string, options: { minIdleMs: number }): Promise<boolean> {
  if (!(Number.isInteger(options.minIdleMs) && options.minIdleMs >= 0)) throw new RangeError(`minIdleMs must be a whole number of milliseconds, got ${options.minIdleMs}`);
  const script = (s.redis as unknown as Record<string, (key: string, ...args: string[]) => Promise<unknown>>).countersignStreamConsumerRemove!;
  return Number(await script.call(s.redis, s.key(key), group, consumer, String(options.minIdleMs))) === 1;
}

export async function streamLength(s: RedisState, key: string): Promise<number> {
  return Number(await s.redis.call('XLEN', s.key(key)));
}

export async function streamPendingCount(s: RedisState, key: string, group: string): Promise<number> {
  try {
    const [count] = (await s.redis.call('XPENDING', s.key(key), group)) as [number, ...unknown[]];
    return Number(count);
  } catch (error) {
    if (replyCode(error) === 'NOGROUP') return 0;
    throw error;
  }
}

/**
 * The entries of a one-stream XREAD(GROUP) reply: `[[key, entries]]` in RESP2, `[key, entries]`
 * when the connection speaks RESP3 (a map, which ioredis flattens), null when nothing was read.
 */
function streamReadEntries(reply: unknown): [string, string[]][] {
  if (!Array.isArray(reply) || reply.length === 0) return [];
  const entries = typeof reply[0] === 'string' ? reply[1] : (reply[0] as unknown[])[1];
  return Array.isArray(entries) ? (entries as [string, string[]][]) : [];
}

/** Refuses a count that is not a positive whole number before Redis does. */
function checkCount(count: number): void {
  if (!(Number.isInteger(count) && count > 0)) throw new RangeError(`count must be a positive whole number, got ${count}`);
}
