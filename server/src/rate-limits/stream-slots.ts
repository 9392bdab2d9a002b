import type { IdGenerator } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { tooManyRequests, type RateLimitDeps } from './rate-limit.ts';

/**
 * How long a slot is held without a renewal (ms). The stream renews it with every keep-alive
 * (25 s), so a live stream keeps it; a stream whose instance died without closing it frees it
 * within this.
 */
export const STREAM_LEASE_MS = 60_000;

/** `Retry-After` of a refused stream: the approver PWA reopens after 30 s anyway. */
export const STREAM_RETRY_AFTER_MS = 30_000;

/** One held event stream slot. */
export interface StreamSlot {
  /**
   * Extends the lease by {@link STREAM_LEASE_MS} from now. Answers false when the slot is gone (its
   * lease ran out unrenewed and another stream took it, or it was released): the stream must end.
   */
  renew(): Promise<boolean>;
  /** Frees the slot; safe to call more than once. */
  release(): Promise<void>;
}

/**
 * Takes one of the `max` event stream slots of `subject` (a device session), or refuses. The
 * slots are a sorted set of leases (`Store.sortedWindowAdd` with `windowMs: 0`: a member counts
 * while its lease, its score, is in the future), checked and taken in one atomic step on every
 * instance, so `max` streams are open at once however many are asked for together.
 *
 * Without it one cookie held 400 streams open, each a subscription and a socket.
 *
 * @throws CountersignError 429 `too_many_requests` with `Retry-After` when all `max` are held.
 */
export async function acquireStreamSlot(deps: RateLimitDeps & { ids: IdGenerator }, subject: string, max: number): Promise<StreamSlot> {
  const key = keys.streamSlots(subject);
  const member = deps.ids(12);
  const lease = () => deps.store.sortedWindowAdd(key, { nowMs: deps.clock.now(), windowMs: 0, member, score: deps.clock.now() + STREAM_LEASE_MS, maxCount: max });
  const taken = await lease();
  if (!taken.ok) throw tooManyRequests(STREAM_RETRY_AFTER_MS, `At most ${max} event streams may be open at once for one device.`);
  let released = false;
  return {
    async renew() {
      return !released && (await lease()).ok;
    },
    async release() {
      if (released) return;
      released = true;
      await deps.store.sortedRemove(key, member);
    },
  };
}
