/** Lua scripts of the Redis store that write and set a TTL in one step, one key each. */

/** The write-with-TTL scripts of {@link SCRIPTS} (redis-scripts.ts). */
export const TTL_SCRIPTS = {
  // ARGV: ttl ms, then the command's arguments: the write and its new TTL land together.
  countersignHashSetTtl: withTtl('HSET'),
  countersignSetAddTtl: withTtl('SADD'),
  countersignSortedAddTtl: withTtl('ZADD'),
} as const;

function withTtl(command: string): string {
  return `redis.call('${command}', KEYS[1], unpack(ARGV, 2))\nredis.call('PEXPIRE', KEYS[1], ARGV[1])`;
}
