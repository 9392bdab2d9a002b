import type { Cluster, Redis } from 'ioredis';
import { createHash } from 'node:crypto';
import { MULTI_KEY_SCRIPTS, SCRIPTS } from '../redis-scripts.ts';
import { STREAM_CONSUMER_REMOVE_LUA } from '../stream-consumer-script.ts';
import { replyCode } from './replies.ts';

type Scripted = Record<keyof typeof SCRIPTS, (key: string, ...args: string[]) => Promise<unknown>>;

/** SHA-1 of each multi-key script, as EVALSHA names it; computed on first use. */
const SHAS: Partial<Record<keyof typeof SCRIPTS, string>> = {};

/**
 * The internal state of one `RedisStore` (redis-store.ts): its client with the scripts defined on
 * it, and its key prefix, shared by the capability modules of `redis/`. Internal to the store
 * folder: not exported from its `index.ts`.
 *
 * @throws TypeError when `prefix` holds a brace.
 */
export class RedisState {
  readonly redis: Redis | Cluster;
  readonly scripts: Scripted;
  readonly prefix: string;

  constructor(redis: Redis | Cluster, prefix: string) {
    this.redis = redis;
    this.prefix = prefix;
    if (/[{}]/.test(this.prefix)) throw new TypeError('RedisStore prefix must not contain braces');
    for (const [name, lua] of Object.entries(SCRIPTS)) {
      // A multi-key script runs through `evalMultiKey` instead.
      if (!MULTI_KEY_SCRIPTS.has(name as keyof typeof SCRIPTS)) this.redis.defineCommand(name, { lua, numberOfKeys: 1 });
    }
    this.redis.defineCommand('countersignStreamConsumerRemove', { lua: STREAM_CONSUMER_REMOVE_LUA, numberOfKeys: 1 });
    this.scripts = this.redis as unknown as Scripted;
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
  async evalMultiKey(name: keyof typeof SCRIPTS, keys: string[], args: string[]): Promise<unknown> {
    const lua = SCRIPTS[name];
    SHAS[name] ??= createHash('sha1').update(lua).digest('hex');
    const sha = SHAS[name];
    try {
      return await this.redis.call('EVALSHA', sha, String(keys.length), ...keys, ...args);
    } catch (error) {
      if (replyCode(error) !== 'NOSCRIPT') throw error;
      return this.redis.call('EVAL', lua, String(keys.length), ...keys, ...args);
    }
  }

  key(key: string): string {
    return this.prefix + key;
  }
}
