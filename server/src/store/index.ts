export type { CasResult, Fields, Guard, PollResult, Store } from './types.ts';
export { keys } from './keys.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export { connectRedisStore, RedisStore, type ConnectRedisStoreOptions, type RedisStoreOptions } from './redis-store.ts';
