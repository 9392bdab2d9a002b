export type { CasResult, Fields, Guard, PollResult, RateEntry, RateResult, SortedWindowEntry, SortedWindowResult, Store, StreamAppendResult, StreamClaimResult, StreamEntry, StreamIndex, StreamMark, StreamTrimResult, WindowEntry, WindowResult } from './types.ts';
export { keys } from './keys.ts';
export { MemoryStore, type MemoryStoreOptions } from './memory-store.ts';
export {
  connectRedis,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  redisFailureOf,
  type ClusterSeed,
  type ConnectRedisOptions,
  type RedisFailure,
  type RedisTarget,
} from './redis-connect.ts';
export { redisErrorKind, StoreUnavailableError, type RedisErrorKind } from './redis-failures.ts';
export { runWithStoreDeadline } from './store-deadline.ts';
export { connectRedisStore, RedisStore, type ConnectRedisStoreOptions, type RedisStoreOptions } from './redis-store.ts';
export { storeTargetOf } from './store-target.ts';
