/** The part of `fetch` the notifier uses; the global `fetch` fits, and so does a test double. */
export type NotificationFetch = (url: string, init: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds. Injected, so tests record the backoff instead of waiting it out. */
export type Sleep = (ms: number) => Promise<void>;

/** How {@link postNotification} sends and retries. */
export interface DeliveryOptions {
  fetch: NotificationFetch;
  sleep: Sleep;
  /** Milliseconds one attempt may take, connection included, before it counts as failed. */
  timeoutMs: number;
  /**
   * The waits between attempts, in milliseconds: one attempt more than there are waits.
   * {@link DEFAULT_RETRY_DELAYS_MS} gives 5 attempts over about 15 s.
   */
  retryDelaysMs: readonly number[];
}

/** Exponential backoff: 1 s, 2 s, 4 s, 8 s between 5 attempts. */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = [1000, 2000, 4000, 8000];

/** A notification endpoint that has not answered within 5 s is treated as down for that attempt. */
export const DEFAULT_NOTIFICATION_TIMEOUT_MS = 5000;

/**
 * Why the last attempt failed, as a reason code for the audit trail: the endpoint answered an
 * error status (`endpoint_error`), a redirect (`endpoint_redirect`, never followed), did not
 * answer in time (`endpoint_timeout`), or could not be reached (`endpoint_unreachable`).
 */
export type DeliveryFailure = 'endpoint_error' | 'endpoint_redirect' | 'endpoint_timeout' | 'endpoint_unreachable';

/** The result of {@link postNotification}. `status` is the last HTTP status seen, if any. */
export type DeliveryResult =
  | { delivered: true; attempts: number; status: number }
  | { delivered: false; attempts: number; reason: DeliveryFailure; status?: number };

/** 408 and 429 say "later"; 5xx may pass. Any other refusal will be the same on the next try. */
function worthRetrying(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * POSTs a JSON body to a client notification endpoint with `Authorization: Bearer <token>`, and
 * retries with backoff until the endpoint accepts it.
 *
 * Any 2xx is success (the spec asks for 204 and lets the OP accept 200; the response body is
 * ignored). Redirects are never followed (`redirect: 'manual'`): the spec forbids it, and following
 * one would send the bearer token and the tokens in the body wherever it points. 3xx and 4xx other
 * than 408/429 end the delivery at once; 5xx, 408, 429, timeouts and network errors are retried.
 *
 * Expected failures are values, never exceptions; neither the token nor the body is logged.
 *
 * @param endpoint - the client's `backchannel_client_notification_endpoint`, checked at registration.
 * @param bearer - the request's `client_notification_token`.
 * @param body - serialised as JSON.
 * @see CIBA Core 1.0 §10.2 (ping callback), §10.3 (push), §12 (push error payload); RFC 6750 §2.1
 */
export async function postNotification(endpoint: string, bearer: string, body: unknown, options: DeliveryOptions): Promise<DeliveryResult> {
  const payload = JSON.stringify(body);
  const attempts = options.retryDelaysMs.length + 1;
  let failure: Extract<DeliveryResult, { delivered: false }> = { delivered: false, attempts: 0, reason: 'endpoint_unreachable' };
  for (let attempt = 1; attempt <= attempts; attempt++) {
    if (attempt > 1) await options.sleep(options.retryDelaysMs[attempt - 2]!);
    try {
      const response = await options.fetch(endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
        body: payload,
        redirect: 'manual',
        signal: AbortSignal.timeout(options.timeoutMs),
      });
      // The body is ignored; cancelling it frees the connection.
      await response.body?.cancel().catch(() => undefined);
      if (response.status >= 200 && response.status < 300) return { delivered: true, attempts: attempt, status: response.status };
      const redirect = response.status >= 300 && response.status < 400;
      failure = { delivered: false, attempts: attempt, reason: redirect ? 'endpoint_redirect' : 'endpoint_error', status: response.status };
      if (!worthRetrying(response.status)) return failure;
    } catch (error) {
      const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
      failure = { delivered: false, attempts: attempt, reason: timedOut ? 'endpoint_timeout' : 'endpoint_unreachable' };
    }
  }
  return failure;
}
