import type { ClientNotifier, Deps } from '../deps.ts';
import type { ClientNotificationJob, JobOutcome } from '../jobs/index.ts';
import { createGuardedFetch, type HostResolver } from '../outbound/index.ts';
import { notifyClient, type NotifyClientDeps } from './notify-client.ts';
import { DEFAULT_NOTIFICATION_TIMEOUT_MS, DEFAULT_RETRY_DELAYS_MS, type DeliveryOptions } from './post-notification.ts';

/** Options of client notification delivery; every one has a production default. */
export type ClientNotifierOptions = Partial<Pick<DeliveryOptions, 'fetch' | 'timeoutMs' | 'retryDelaysMs'>> & {
  /** How the production transport resolves host names (tests answer as a rebinding DNS server would); the system's by default. */
  resolve?: HostResolver | undefined;
};

/**
 * The delivery options with their defaults: 5 s per attempt, retries after 1, 2, 4, 8 s, and as the
 * transport, in production the guarded fetch (`createGuardedFetch`: the address each host resolves
 * to is checked as the connection is made), in development the global `fetch` (loopback receivers
 * are the point there). A `fetch` given in `options` replaces the transport, not the check of the
 * URL, which `postNotification` makes in production whatever the transport.
 */
export function deliveryOptions(options: ClientNotifierOptions, mode: { production: boolean }): DeliveryOptions {
  return {
    fetch: options.fetch ?? (mode.production ? createGuardedFetch({ resolve: options.resolve }) : (url, init) => globalThis.fetch(url, init)),
    production: mode.production,
    timeoutMs: options.timeoutMs ?? DEFAULT_NOTIFICATION_TIMEOUT_MS,
    retryDelaysMs: options.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS,
  };
}

/**
 * Creates the {@link ClientNotifier} of the `Deps`: each settled request of a ping or push client
 * becomes a `client_notification` job of the queue (`deps.jobs`), holding `{tenant, auth_req_id}`
 * and no secret; any instance runs it (see {@link clientNotificationHandler}). Called as a
 * consequence of the transition (`consequences.ts`), so the job is enqueued at least once even when
 * this instance dies first (the outbox's reconciler enqueues it then).
 *
 * @param deps - read when a request settles, so the notifier can be built together with the `Deps` it is part of.
 */
export function createClientNotifier(deps: () => Pick<Deps, 'jobs'>): ClientNotifier {
  return {
    async requestSettled(request) {
      if (request.token_delivery_mode === 'poll') return;
      await deps().jobs.enqueue({ kind: 'client_notification', tenant: request.tenant, auth_req_id: request.auth_req_id });
    },
  };
}

/**
 * The job handler of `client_notification`: one delivery attempt ({@link notifyClient}); a failed
 * attempt worth retrying answers the backoff, and the queue enqueues the next attempt due then.
 *
 * @param mode - the deployment mode (`Config.production`), which picks the transport and the URL rules.
 */
export function clientNotificationHandler(deps: () => NotifyClientDeps, options: ClientNotifierOptions, mode: { production: boolean }): (job: ClientNotificationJob) => Promise<JobOutcome> {
  const delivery = deliveryOptions(options, mode);
  return async (job) => {
    const outcome = await notifyClient(deps(), job, delivery);
    return outcome === 'delivered' ? 'done' : outcome;
  };
}
