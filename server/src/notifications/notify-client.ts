import { CountersignError } from '@countersign/shared';
import { issueTokens } from '../ciba/index.ts';
import { findClient } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { effectiveState, fromFields, notificationTokenOf, type ApprovalRequest, type RequestRef } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { pingBody, pushErrorBody, pushTokenBody, type PingBody, type PushErrorBody, type PushTokenBody } from './notification-body.ts';
import { postNotification, type DeliveryOptions } from './post-notification.ts';

/** What one {@link notifyClient} run did, for the caller and the tests; never holds a secret. */
export type NotifyOutcome = 'delivered' | 'failed' | 'skipped';

/**
 * The body that tells the client how `request` ended, or null when there is nothing to send.
 * For a push client that was approved, this issues the approval token, once (`issueTokens` binds it
 * to the request by compare-and-swap): if an earlier run already issued it, nothing is sent again.
 */
async function bodyFor(deps: Deps, request: ApprovalRequest): Promise<PingBody | PushTokenBody | PushErrorBody | null> {
  const state = effectiveState(request, deps.clock.now());
  if (state === 'pending' || state === 'redeemed') return null;
  if (request.token_delivery_mode === 'ping') return pingBody(request.auth_req_id);
  if (state === 'denied') return pushErrorBody(request.auth_req_id, 'access_denied');
  if (state === 'expired') return pushErrorBody(request.auth_req_id, 'expired_token');
  try {
    return pushTokenBody(request.auth_req_id, await issueTokens(deps, request));
  } catch (error) {
    if (!(error instanceof CountersignError)) throw error;
    // The approval ran out before it could be delivered: a late approval never makes a token.
    if (error.code === 'expired_token') return pushErrorBody(request.auth_req_id, 'expired_token');
    if (error.code === 'invalid_grant') return null;
    throw error;
  }
}

/**
 * Tells a ping or push client how one of its requests ended: reads the request and its
 * `client_notification_token`, builds the body for the request's state as it is now (so an
 * approval that expired meanwhile is reported as expired), POSTs it with retries, audits
 * `notified` or `notify_failed`, and marks the request `notified_at` once delivered.
 *
 * Safe to run twice for one request (issue 6 will deliver jobs at least once): a request already
 * marked `notified_at` is skipped, and a push token is never issued twice. A ping that fails loses
 * nothing: the token endpoint keeps answering a ping client as it answers a poll client.
 *
 * @returns what happened; expected delivery failures are audited, not thrown.
 * @throws when the store fails (the background runner logs it).
 * @see CIBA Core 1.0 §10.2 (ping), §10.3 (push), §12 (push error payload)
 */
export async function notifyClient(deps: Deps, ref: RequestRef, delivery: DeliveryOptions): Promise<NotifyOutcome> {
  const key = keys.request(ref.tenant, ref.auth_req_id);
  const fields = await deps.store.hashGet(key);
  if (!fields?.auth_req_id) return 'skipped';
  const request = fromFields(fields);
  const bearer = notificationTokenOf(fields);
  if (request.token_delivery_mode === 'poll' || !bearer || request.notified_at !== undefined) return 'skipped';

  const audit = { tenant: request.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub: request.sub, channel: 'notification' as const };
  const client = await findClient(deps.store, request.client_id);
  const endpoint = client?.backchannel_client_notification_endpoint;
  if (!endpoint) {
    await deps.audit.record({ ...audit, type: 'notify_failed', reason: 'no_notification_endpoint', detail: { mode: request.token_delivery_mode } });
    return 'failed';
  }

  const body = await bodyFor(deps, request);
  if (!body) return 'skipped';
  const result = await postNotification(endpoint, bearer, body, delivery);
  const detail = {
    mode: request.token_delivery_mode,
    ...('error' in body ? { error: body.error } : {}),
    attempts: result.attempts,
    ...(result.status === undefined ? {} : { status: result.status }),
  };
  if (!result.delivered) {
    await deps.audit.record({ ...audit, type: 'notify_failed', reason: result.reason, detail });
    deps.log.warn('client notification failed', { auth_req_id: request.auth_req_id, client_id: request.client_id, reason: result.reason, attempts: result.attempts });
    return 'failed';
  }
  await deps.store.compareAndSet(key, [{ field: 'notified_at', op: 'absent' }], { notified_at: String(deps.clock.now()) });
  await deps.audit.record({ ...audit, type: 'notified', detail });
  return 'delivered';
}
