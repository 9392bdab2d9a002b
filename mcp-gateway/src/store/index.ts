export type { CallRecord, CallStore } from './call-record.ts';
export { createMemoryCallStore } from './memory-call-store.ts';
export { createRedisCallStore } from './redis-call-store.ts';
