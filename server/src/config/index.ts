export { loadConfig, type Config } from './config.ts';
export { envSchema, type Env } from './env.ts';
