import { DEFAULT_BACKOFF_MS } from '../jobs/index.ts';
import { endpointProblem, forbiddenEndpointCause, type OutboundFetch } from '../outbound/index.ts';

/** The part of `fetch` the notifier uses; the global `fetch` fits, and so does a test double. */
export type NotificationFetch = OutboundFetch;

/** How client notifications are sent and retried. */
export interface DeliveryOptions {
  /** The transport; in production by default the guarded one (`createGuardedFetch`), which checks the resolved address. */
  fetch: NotificationFetch;
  /** `NODE_ENV=production`: the endpoint must pass the production rules of `endpointProblem` before anything is sent. */
  production: boolean;
  /** Milliseconds one attempt may take, connection included, before it counts as failed. */
  timeoutMs: number;
  /**
   * The waits between attempts, in milliseconds: one attempt more than there are waits. Each retry
   * is a job of the queue due after its wait (never a sleep), so it may run on another instance.
   * {@link DEFAULT_RETRY_DELAYS_MS} gives 5 attempts over about 15 s.
   */
  retryDelaysMs: readonly number[];
}

/** Exponential backoff: 1 s, 2 s, 4 s, 8 s between 5 attempts (the job queue's default). */
export const DEFAULT_RETRY_DELAYS_MS: readonly number[] = DEFAULT_BACKOFF_MS;

/** A notification endpoint that has not answered within 5 s is treated as down for that attempt. */
export const DEFAULT_NOTIFICATION_TIMEOUT_MS = 5000;

/**
 * Why an attempt failed, as a reason code for the audit trail: the endpoint answered an error
 * status (`endpoint_error`), a redirect (`endpoint_redirect`, never followed), did not answer in time
 * (`endpoint_timeout`), could not be reached (`endpoint_unreachable`), or is one the server must not
 * connect to (`endpoint_forbidden`: an internal address, as written or as resolved; nothing was sent).
 */
export type DeliveryFailure = 'endpoint_error' | 'endpoint_redirect' | 'endpoint_timeout' | 'endpoint_unreachable' | 'endpoint_forbidden';

/**
 * The result of one {@link postNotification} attempt. `status` is the HTTP status, if any;
 * `retryable` says whether another attempt may fare better; `problem` says why an endpoint was
 * forbidden (it names the host and the address, never the path or the token).
 */
export type DeliveryResult = { delivered: true; status: number } | { delivered: false; reason: DeliveryFailure; status?: number; retryable: boolean; problem?: string };

/** 408 and 429 say "later"; 5xx may pass. Any other refusal will be the same on the next try. */
function worthRetrying(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * POSTs a JSON body to a client notification endpoint with `Authorization: Bearer <token>`, once.
 * The caller retries (the job queue, with backoff) when the result is `retryable`.
 *
 * Any 2xx is success (the spec asks for 204 and lets the OP accept 200; the response body is
 * ignored). Redirects are never followed (`redirect: 'manual'`): the spec forbids it, and following
 * one would send the bearer token and the tokens in the body wherever it points. 3xx and 4xx other
 * than 408/429 are final; 5xx, 408, 429, timeouts and network errors are worth retrying.
 *
 * The endpoint was checked at registration, and is checked again here (a client registered under
 * older rules, or a store written by hand, gets no free pass); in production the transport then
 * checks the address the host resolves to as it connects. A refusal is `endpoint_forbidden`, final:
 * no byte is sent, and the bearer token never leaves the server.
 *
 * Expected failures are values, never exceptions; neither the token nor the body is logged.
 *
 * @param endpoint - the client's `backchannel_client_notification_endpoint`, checked at registration.
 * @param bearer - the request's `client_notification_token`.
 * @param body - serialised as JSON.
 * @see CIBA Core 1.0 §10.2 (ping callback), §10.3 (push), §12 (push error payload); RFC 6750 §2.1
 */
export async function postNotification(endpoint: string, bearer: string, body: unknown, options: Pick<DeliveryOptions, 'fetch' | 'timeoutMs' | 'production'>): Promise<DeliveryResult> {
  const problem = endpointProblem(endpoint, { production: options.production });
  if (problem) return { delivered: false, reason: 'endpoint_forbidden', retryable: false, problem };
  try {
    const response = await options.fetch(endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${bearer}` },
      body: JSON.stringify(body),
      redirect: 'manual',
      signal: AbortSignal.timeout(options.timeoutMs),
    });
    // The body is ignored; cancelling it frees the connection.
    await response.body?.cancel().catch(() => undefined);
    if (response.status >= 200 && response.status < 300) return { delivered: true, status: response.status };
    const redirect = response.status >= 300 && response.status < 400;
    return { delivered: false, reason: redirect ? 'endpoint_redirect' : 'endpoint_error', status: response.status, retryable: worthRetrying(response.status) };
  } catch (error) {
    const forbidden = forbiddenEndpointCause(error);
    if (forbidden) return { delivered: false, reason: 'endpoint_forbidden', retryable: false, problem: forbidden.reason };
    const timedOut = error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
    return { delivered: false, reason: timedOut ? 'endpoint_timeout' : 'endpoint_unreachable', retryable: true };
  }
}
