export { loadConfig, type Config, type Rate, type RateLimits } from './config.ts';
export { envSchema, type Env } from './env.ts';
export { isHostName, unreachableDomainReason } from './host-names.ts';
export { PERSISTENCE_SETTINGS, type PersistenceSetting } from './persistence-setting.ts';
