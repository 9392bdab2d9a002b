export { countRate, enforceRate, retryAfterSeconds, tooManyRequests, type RateLimitDeps, type RateLimitName } from './rate-limit.ts';
export { acquireStreamSlot, STREAM_LEASE_MS, STREAM_RETRY_AFTER_MS, type StreamSlot } from './stream-slots.ts';
