import { CountersignError } from '@countersign/shared';
import { findClient } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { backoffDelay, type ClientNotificationJob } from '../jobs/index.ts';
import { endpointProblem } from '../outbound/index.ts';
import { effectiveState, fromFields, notificationTokenOf, type ApprovalRequest } from '../requests/index.ts';
import { keys, type Fields } from '../store/index.ts';
import { issuePushTokens, keptPushBody, PUSH_BODY_FIELD, type IssuePushTokensDeps } from './issue-push-tokens.ts';
import { pingBody, pushErrorBody, type PingBody, type PushErrorBody, type PushTokenBody } from './notification-body.ts';
import { postNotification, type DeliveryFailure, type DeliveryOptions } from './post-notification.ts';

/**
 * What one {@link notifyClient} run did, for the job queue and the tests; never holds a secret.
 * `{ retryInMs }`: the attempt failed and the next one is due that many milliseconds from now.
 */
export type NotifyOutcome = 'delivered' | 'failed' | 'skipped' | { retryInMs: number };

/** What {@link notifyClient} needs of the server's dependencies. */
export type NotifyClientDeps = IssuePushTokensDeps & Pick<Deps, 'log' | 'store' | 'audit'>;

/**
 * The request hash field set (epoch ms) when the notification was given up on, so that a repeated
 * run neither tries again nor audits `notify_failed` twice.
 */
const NOTIFY_FAILED_FIELD = 'notify_failed_at';

/**
 * The body that tells the client how `request` ended, or null when there is nothing to send.
 * For a push client that was approved, this is the token response kept with the request, issued
 * (once, see {@link issuePushTokens}) by the first attempt: every attempt sends the same token.
 */
async function bodyFor(deps: NotifyClientDeps, request: ApprovalRequest, fields: Fields): Promise<PingBody | PushTokenBody | PushErrorBody | null> {
  const state = effectiveState(request, deps.clock.now());
  if (state === 'pending' || state === 'redeemed') return null;
  if (request.token_delivery_mode === 'ping') return pingBody(request.auth_req_id);
  if (state === 'denied') return pushErrorBody(request.auth_req_id, 'access_denied');
  if (state === 'expired') return pushErrorBody(request.auth_req_id, 'expired_token');
  const kept = keptPushBody(fields);
  if (kept) return kept;
  // Issued, and its body since delivered or given up on: nothing more to send.
  if (request.token_jti) return null;
  try {
    return await issuePushTokens(deps, request);
  } catch (error) {
    // The approval ran out before it could be delivered: a late approval never makes a token.
    if (error instanceof CountersignError && error.code === 'expired_token') return pushErrorBody(request.auth_req_id, 'expired_token');
    throw error;
  }
}

/**
 * One attempt to tell a ping or push client how one of its requests ended (the job
 * `client_notification`): reads the request and its `client_notification_token`, builds the body
 * for the request's state as it is now (so an approval that expired meanwhile is reported as
 * expired), POSTs it once, and then:
 * - delivered: marks the request `notified_at` (emptying a kept push body) and audits `notified`;
 * - failed, and worth retrying with attempts left: answers `{ retryInMs }` (the queue enqueues the
 *   next attempt, due after the backoff `delivery.retryDelaysMs`, on any instance);
 * - failed for good: marks `notify_failed_at` (emptying a kept push body) and audits `notify_failed`;
 *   so does an endpoint the server must not call (`endpoint_forbidden`, with `detail.problem`),
 *   checked before a push token is issued, and again by the transport on the resolved address;
 *   so does a client an operator disabled (`client_disabled`), checked before anything is issued.
 *
 * Safe to run twice for one job (the queue delivers jobs at least once): a request already marked
 * either way is skipped, the marks are compare-and-swaps so each audit is written once, and a push
 * token is issued once and kept, so a repeated run sends the same token (a duplicate at worst, which
 * CIBA lets a client see for a ping, and which carries nothing new for a push). A ping that fails
 * loses nothing: the token endpoint keeps answering a ping client as it answers a poll client.
 *
 * @returns what happened; expected delivery failures are audited, not thrown.
 * @throws when the store fails (the queue retries the job).
 * @see CIBA Core 1.0 §10.2 (ping), §10.3 (push), §12 (push error payload)
 */
export async function notifyClient(deps: NotifyClientDeps, job: Pick<ClientNotificationJob, 'tenant' | 'auth_req_id' | 'attempt'>, delivery: DeliveryOptions): Promise<NotifyOutcome> {
  const key = keys.request(job.tenant, job.auth_req_id);
  const fields = await deps.store.hashGet(key);
  if (!fields?.auth_req_id) return 'skipped';
  const request = fromFields(fields);
  const bearer = notificationTokenOf(fields);
  if (request.token_delivery_mode === 'poll' || !bearer || request.notified_at !== undefined || fields[NOTIFY_FAILED_FIELD]) return 'skipped';

  const audit = { tenant: request.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub: request.sub, channel: 'notification' as const };
  const mode = request.token_delivery_mode;
  /** Marks the notification given up on; audits it only when this run is the one that marked it. */
  const giveUp = async (reason: DeliveryFailure | 'no_notification_endpoint' | 'client_disabled', detail: Record<string, string | number>): Promise<NotifyOutcome> => {
    const marked = await deps.store.compareAndSet(
      key,
      [
        { field: 'notified_at', op: 'absent' },
        { field: NOTIFY_FAILED_FIELD, op: 'absent' },
      ],
      { [NOTIFY_FAILED_FIELD]: String(deps.clock.now()), ...(mode === 'push' ? { [PUSH_BODY_FIELD]: '' } : {}) },
    );
    if (!marked.ok) return 'skipped';
    await deps.audit.record({ ...audit, type: 'notify_failed', reason, detail });
    deps.log.warn('client notification failed', { auth_req_id: request.auth_req_id, client_id: request.client_id, reason, attempts: job.attempt });
    return 'failed';
  };

  const client = await findClient(deps.store, request.client_id);
  // A disabled client collects nothing (docs/operator-tools.md): no ping tells it to come for a
  // token, and no push carries one. Given up for good, not retried: enabling the client again lets a
  // ping client poll as before, and a push client's approval stays uncollected, as any disabled call.
  if (client?.disabled_at !== undefined) return giveUp('client_disabled', { mode });
  const endpoint = client?.backchannel_client_notification_endpoint;
  if (!endpoint) return giveUp('no_notification_endpoint', { mode });
  // Before any token is issued for it: an endpoint the server must not call gets nothing, ever.
  const problem = endpointProblem(endpoint, { production: delivery.production });
  if (problem) return giveUp('endpoint_forbidden', { mode, problem, attempts: job.attempt });

  const body = await bodyFor(deps, request, fields);
  if (!body) return 'skipped';
  const result = await postNotification(endpoint, bearer, body, delivery);
  const detail = {
    mode,
    ...('error' in body ? { error: body.error } : {}),
    attempts: job.attempt,
    ...(result.status === undefined ? {} : { status: result.status }),
    ...(!result.delivered && result.problem ? { problem: result.problem } : {}),
  };
  if (!result.delivered) {
    const wait = result.retryable ? backoffDelay(job.attempt, delivery.retryDelaysMs) : null;
    if (wait === null) return giveUp(result.reason, detail);
    deps.log.info('client notification attempt failed; retry scheduled', { auth_req_id: request.auth_req_id, client_id: request.client_id, reason: result.reason, attempt: job.attempt, retry_in_ms: wait });
    return { retryInMs: wait };
  }
  const marked = await deps.store.compareAndSet(key, [{ field: 'notified_at', op: 'absent' }], {
    notified_at: String(deps.clock.now()),
    // Delivered: the token it carried no longer needs to be kept at rest.
    ...(mode === 'push' ? { [PUSH_BODY_FIELD]: '' } : {}),
  });
  // A concurrent run of the same job delivered and audited first.
  if (marked.ok) await deps.audit.record({ ...audit, type: 'notified', detail });
  return 'delivered';
}
