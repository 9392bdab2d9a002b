import type { ClientNotifier, Deps } from '../deps.ts';
import { notifyClient } from './notify-client.ts';
import { DEFAULT_NOTIFICATION_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_MS, type DeliveryOptions } from './post-notification.ts';

/** Options of {@link createClientNotifier}; every one has a production default. */
export type ClientNotifierOptions = Partial<DeliveryOptions>;

/** A real wait on the event loop's timers. */
const timerSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Creates the {@link ClientNotifier} of the `Deps`: each settled request of a ping or push client
 * becomes one background task (`deps.background`, so a graceful shutdown and the tests can
 * `drain()` it) that runs {@link notifyClient} with its retries.
 *
 * This is where issue 6 hooks in: instead of running the task in this process, `requestSettled`
 * will append `{tenant, auth_req_id}` to a Redis Stream, and a consumer group on every instance
 * will run `notifyClient` for each entry and acknowledge it once delivered or given up on. The
 * task carries no secret and no token (they are read from the store when it runs), and
 * `notifyClient` is already safe to repeat, so at-least-once delivery of the entries is enough.
 *
 * @param deps - read when a task runs, so the notifier can be built together with the `Deps` it is part of.
 * @param options - `fetch` (global by default), `sleep` (timers), `timeoutMs` (5 s per attempt),
 *   `retryDelaysMs` (1, 2, 4, 8 s).
 */
export function createClientNotifier(deps: () => Deps, options: ClientNotifierOptions = {}): ClientNotifier {
  const delivery: DeliveryOptions = {
    fetch: options.fetch ?? ((url, init) => globalThis.fetch(url, init)),
    sleep: options.sleep ?? timerSleep,
    timeoutMs: options.timeoutMs ?? DEFAULT_NOTIFICATION_TIMEOUT_MS,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
  };
  return {
    requestSettled(request) {
      if (request.token_delivery_mode === 'poll') return;
      const current = deps();
      const ref = { tenant: request.tenant, auth_req_id: request.auth_req_id };
      current.background.run('client-notification', () => notifyClient(current, ref, delivery));
    },
  };
}
