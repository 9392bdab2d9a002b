/** Lua scripts of the Redis store: one per multi-step operation, one key each. */

import { RECORD_SCRIPTS } from './redis/record-scripts.ts';
import { QUEUE_SCRIPTS, STREAM_SCRIPTS } from './redis/stream-scripts.ts';
import { TTL_SCRIPTS } from './redis/ttl-scripts.ts';
import { WINDOW_SCRIPTS } from './redis/window-scripts.ts';

/**
 * The Lua scripts of {@link RedisStore}, registered with `defineCommand`. Each touches KEYS[1]
 * only, but those of {@link MULTI_KEY_SCRIPTS}, whose keys all share one hash tag: every script runs
 * on one Redis Cluster slot.
 */
export const SCRIPTS = { ...RECORD_SCRIPTS, ...STREAM_SCRIPTS, ...WINDOW_SCRIPTS, ...QUEUE_SCRIPTS, ...TTL_SCRIPTS } as const;

/**
 * The scripts that take more than one key (ioredis is then told the key count on each call). Every
 * key of such a script shares KEYS[1]'s hash tag, checked before the call, so it still runs on one
 * Redis Cluster slot.
 */
export const MULTI_KEY_SCRIPTS: ReadonlySet<keyof typeof SCRIPTS> = new Set(['countersignStreamAppendManyAfter', 'countersignStreamTrimBefore']);
