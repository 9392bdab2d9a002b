export { createApp, PWA_DIST, type AppOptions } from './app.ts';
export { loadConfig, type Config } from './config/index.ts';
export { createDeps, type DepsOverrides } from './create-deps.ts';
export type { Deps, UserNotifier } from './deps.ts';
export { createPushNotifier, createWebPushSender, type PushSender } from './push/index.ts';
export { ManualClock, OffsetClock, silentLogger, systemClock, type Clock, type Logger } from './runtime/index.ts';
export { keys, MemoryStore, RedisStore, connectRedisStore, type Store } from './store/index.ts';
export { KeyRing } from './tokens/index.ts';
