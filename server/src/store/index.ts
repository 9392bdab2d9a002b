export type {
  BoundedIncrement,
  CasResult,
  CompareAndSetOptions,
  Fields,
  Guard,
  IndexStore,
  QueueStore,
  RateEntry,
  RateResult,
  RecordStore,
  SortedWindowEntry,
  SortedWindowResult,
  Store,
  StreamClaimResult,
  StreamConsumer,
  StreamEntry,
  StreamIndex,
  StreamMark,
  StreamStore,
  StreamTrimResult,
  ThrottleResult,
  ThrottleRule,
  WindowEntry,
  WindowResult,
  WindowStore,
} from './types.ts';
export { keys } from './keys.ts';
export { LateSwapError } from './types.ts';
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
export { checkPersistence, judgePersistence, readPersistence, type NodePersistence, type PersistenceVerdict } from './check-persistence.ts';
export { observeStoreErrors } from './redis-guard.ts';
