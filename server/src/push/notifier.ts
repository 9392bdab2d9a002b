import type { Store } from '../store/index.ts';
import { buildPushPayload, topicFor } from './payload.ts';
import type { PushSender, PushSendResult } from './sender.ts';
import { deletePushSubscription, listPushSubscriptions } from './subscriptions.ts';

/**
 * One structured log line of the notifier. It names the push service by origin only: the
 * endpoint path is a capability, and the keys and the payload are never logged.
 */
export interface PushLogEntry {
  event: 'push_sent' | 'push_gone' | 'push_failed' | 'push_skipped';
  tenant: string;
  device_id: string;
  auth_req_id: string;
  /** The push service's origin, e.g. `https://fcm.googleapis.com`. */
  push_service: string;
  status_code?: number;
  reason?: string;
}

/** Where the notifier reports each delivery; nothing is logged when absent. */
export type PushLog = (entry: PushLogEntry) => void;

/** Options of {@link createPushNotifier}. */
export interface PushNotifierOptions {
  /** Where subscriptions are read and gone ones deleted. */
  store: Store;
  /** How messages are sent: `createWebPushSender(…)`, or a fake in tests. */
  sender: PushSender;
  /** Structured log of every delivery. */
  log?: PushLog | undefined;
  /**
   * A last check of each stored endpoint before sending (defence in depth against SSRF, e.g.
   * `(url) => isAllowedPushEndpoint(url, policy)`); a refused endpoint counts as `failed`.
   */
  allowEndpoint?: ((endpoint: string) => boolean) | undefined;
}

/** What {@link PushNotifier.notifyUser} announces. */
export interface NotifyUserInput {
  tenant: string;
  /** The user (CIBA `login_hint`). */
  sub: string;
  auth_req_id: string;
  /** A one-line summary computed by the server from the stored request (cut to fit here). */
  summary: string;
  /** Seconds until the request expires: the RFC 8030 `TTL`. At most 0 sends nothing. */
  ttlSeconds: number;
  /**
   * `approval_request` (the default, `Urgency: high`) or `request_expired` (`Urgency: normal`). Both
   * use the request's `Topic`, so an expiry notice replaces an approval request still undelivered.
   * `device_removed` (`Urgency: normal`) tells the user's other devices an operator removed one:
   * its `auth_req_id` holds the removed device's id (the notification's tag), not a request's.
   */
  kind?: 'approval_request' | 'request_expired' | 'mandate_spend' | 'device_removed';
}

/** Counts of one {@link PushNotifier.notifyUser} call, one per subscription. */
export interface NotifyUserResult {
  /** Accepted by the push service. */
  sent: number;
  /** Answered 404/410 and deleted. */
  removed: number;
  /** Refused otherwise, unreachable, or not allowed; kept. */
  failed: number;
}

/** Announces approval requests to a user's devices. */
export interface PushNotifier {
  /**
   * Sends the request's push message to every subscription of every device of the user, in
   * parallel, with `Urgency: high`, `TTL` = the time left and the request's `Topic`. A 404/410
   * deletes exactly that subscription. Never rejects on a push service's answer.
   *
   * @throws when the store cannot be read (a broken system, not a refusal).
   */
  notifyUser(input: NotifyUserInput): Promise<NotifyUserResult>;
}

/**
 * Creates the notifier that tells a user's devices about a new approval request (docs/design.md
 * "Display": a small payload with `auth_req_id` and a one-line summary; the PWA fetches the rest).
 *
 * @param options The store, the sender, an optional log and endpoint check.
 * @returns The notifier.
 * @see RFC 8030 §5.2 (`TTL`), §5.3 (`Urgency`), §5.4 (`Topic`), §7.3 (expiration); RFC 8291; RFC 8292
 * @example
 * ```ts
 * const notifier = createPushNotifier({ store, sender: createWebPushSender({ vapid }) });
 * const { sent, removed, failed } = await notifier.notifyUser({
 *   tenant, sub, auth_req_id, summary: '€490.00 to ACME Ltd: Refund for order 1042', ttlSeconds: 300,
 * });
 * ```
 */
export function createPushNotifier(options: PushNotifierOptions): PushNotifier {
  const { store, sender, log, allowEndpoint } = options;

  return {
    async notifyUser(input) {
      const result: NotifyUserResult = { sent: 0, removed: 0, failed: 0 };
      // A message that outlives its request would announce something that can no longer be approved.
      const ttlSeconds = Math.floor(input.ttlSeconds);
      if (!(ttlSeconds > 0)) return result;

      const payload = buildPushPayload({ auth_req_id: input.auth_req_id, summary: input.summary, ...(input.kind ? { kind: input.kind } : {}) });
      const urgency = input.kind === 'request_expired' || input.kind === 'device_removed' ? 'normal' : 'high';
      const topic = topicFor(input.auth_req_id);
      const subscriptions = await listPushSubscriptions(store, input.tenant, input.sub);

      await Promise.all(
        subscriptions.map(async ({ deviceId, subscription }) => {
          const entry = { tenant: input.tenant, device_id: deviceId, auth_req_id: input.auth_req_id, push_service: originOf(subscription.endpoint) };
          if (allowEndpoint && !allowEndpoint(subscription.endpoint)) {
            result.failed += 1;
            log?.({ ...entry, event: 'push_skipped', reason: 'endpoint_not_allowed' });
            return;
          }
          let answer: PushSendResult;
          try {
            answer = await sender.send(subscription, payload, { ttlSeconds, urgency, topic });
          } catch {
            // The contract says a sender never rejects; a fake or a future one might.
            answer = { status: 'failed', reason: 'sender_error' };
          }
          const details = { ...(answer.statusCode === undefined ? {} : { status_code: answer.statusCode }), ...(answer.reason ? { reason: answer.reason } : {}) };
          if (answer.status === 'gone') {
            await deletePushSubscription(store, { tenant: input.tenant, sub: input.sub, deviceId }, subscription.endpoint);
            result.removed += 1;
            log?.({ ...entry, ...details, event: 'push_gone' });
          } else if (answer.status === 'sent') {
            result.sent += 1;
            log?.({ ...entry, ...details, event: 'push_sent' });
          } else {
            result.failed += 1;
            log?.({ ...entry, ...details, event: 'push_failed' });
          }
        }),
      );
      return result;
    },
  };
}

function originOf(endpoint: string): string {
  try {
    return new URL(endpoint).origin;
  } catch {
    return 'invalid';
  }
}
