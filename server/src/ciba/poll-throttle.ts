import type { Fields, RecordStore } from '../store/index.ts';

/**
 * How much a poll that comes before `interval` has passed adds to the request's interval, in
 * seconds: CIBA Core §11 says that on `slow_down` "the interval MUST be increased by at least 5
 * seconds for this and all subsequent requests".
 */
export const SLOW_DOWN_INCREMENT_SECONDS = 5;

/** The interval of a request record that holds none: CIBA Core §7.3 makes 5 s the default. */
export const DEFAULT_POLL_INTERVAL_SECONDS = 5;

/** The answer of {@link pollThrottle}. */
export interface PollResult {
  status: 'ok' | 'slow_down' | 'missing';
  /** The request record after the call (its `interval` as it now stands), or null when missing. */
  fields: Fields | null;
}

/**
 * The poll-rate check of the CIBA token endpoint on one request record (fields `interval`,
 * seconds, and `next_poll_at`, epoch ms, absent before the first poll), in one atomic store step
 * so that of ten concurrent polls only one is on time. A poll at or after `next_poll_at - leewayMs`
 * is `ok`; an earlier one is `slow_down` and adds {@link SLOW_DOWN_INCREMENT_SECONDS} to
 * `interval`. Either way `next_poll_at` becomes `nowMs + interval * 1000`.
 *
 * @param key - the request record's key (`keys.request`).
 * @param nowMs - the injected clock, epoch ms.
 * @param leewayMs - how early a poll may come and still be on time (clock drift between machines).
 * @throws the store's error.
 * @see CIBA Core 1.0 §7.3 (`interval`), §11 (`slow_down`)
 */
export async function pollThrottle(store: Pick<RecordStore, 'hashThrottle'>, key: string, nowMs: number, leewayMs = 0): Promise<PollResult> {
  const result = await store.hashThrottle(key, {
    nowMs,
    leewayMs,
    intervalField: 'interval',
    nextAtField: 'next_poll_at',
    unitMs: 1000,
    defaultInterval: DEFAULT_POLL_INTERVAL_SECONDS,
    earlyIncrement: SLOW_DOWN_INCREMENT_SECONDS,
  });
  return { status: result.status === 'early' ? 'slow_down' : result.status, fields: result.fields };
}
