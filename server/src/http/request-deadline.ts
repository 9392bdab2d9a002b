import type { MiddlewareHandler } from 'hono';
import { runWithStoreDeadline } from '../store/index.ts';

/**
 * One store deadline per HTTP request: every store call the request makes shares `ms` from its
 * arrival, the time spent queued behind another command or in the offline queue included, so a
 * stalled Redis gets the caller its 503 `temporarily_unavailable` within about `ms`, however many
 * calls the request makes in sequence. Work the request leaves running after its answer (pushes,
 * history) gets a deadline per call instead.
 *
 * @param ms the Redis command timeout (`REDIS_COMMAND_TIMEOUT_MS`, `config.redisCommandTimeoutMs`).
 * @see docs/reliability.md "Redis errors and deadlines"
 */
export function requestDeadline(ms: number): MiddlewareHandler {
  return function requestDeadline(_c, next) {
    return runWithStoreDeadline(ms, next);
  };
}
