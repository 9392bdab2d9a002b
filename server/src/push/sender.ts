import type { Agent } from 'node:https';
import webpush from 'web-push';
import type { PushSubscriptionJSON } from '@countersign/shared';
import type { VapidKeys } from './vapid-keys.ts';

/** The RFC 8030 §5.3 `Urgency` of a push message. */
export type PushUrgency = 'very-low' | 'low' | 'normal' | 'high';

/** Per-message options of {@link PushSender.send}. */
export interface PushSendOptions {
  /** RFC 8030 §5.2 `TTL`, seconds the push service may hold the message; floored, at least 0. */
  ttlSeconds: number;
  /** RFC 8030 §5.3 `Urgency`. */
  urgency: PushUrgency;
  /** RFC 8030 §5.4 `Topic` (≤ 32 base64url characters), see `topicFor`. */
  topic?: string | undefined;
}

/**
 * What became of one push message. Refusals are values, not exceptions:
 * - `sent`: the push service accepted it (2xx, RFC 8030 §5: usually 201 Created);
 * - `gone`: 404 or 410, the subscription no longer exists (RFC 8030 §7.3): delete it;
 * - `failed`: any other answer or no answer; keep the subscription.
 */
export interface PushSendResult {
  status: 'sent' | 'gone' | 'failed';
  /** The push service's HTTP status, when it answered. */
  statusCode?: number;
  /** For `failed` without an answer: the error code (`ECONNREFUSED`, `ETIMEDOUT`, …). Never holds the endpoint. */
  reason?: string;
}

/** Sends one encrypted push message. The notifier takes any implementation; tests may fake it. */
export interface PushSender {
  /**
   * Encrypts `payload` for `subscription` (RFC 8291, aes128gcm), signs a VAPID JWT (RFC 8292)
   * and POSTs it to the subscription's endpoint. Never rejects.
   */
  send(subscription: PushSubscriptionJSON, payload: string, options: PushSendOptions): Promise<PushSendResult>;
}

/** Options of {@link createWebPushSender}. */
export interface WebPushSenderOptions {
  /** The server's VAPID identity, from `loadVapidKeys`. */
  vapid: VapidKeys;
  /** The HTTPS agent for the push service connections (tests pass one trusting a throwaway CA). */
  agent?: Agent | undefined;
  /** Socket inactivity timeout in milliseconds; {@link DEFAULT_PUSH_TIMEOUT_MS} by default. */
  timeoutMs?: number | undefined;
  /** The clock for the VAPID JWT's `exp`, epoch ms; `Date.now` by default. */
  now?: (() => number) | undefined;
}

/** The default socket timeout of a push request: a stuck push service must not hold a request. */
export const DEFAULT_PUSH_TIMEOUT_MS = 10_000;

/**
 * A {@link PushSender} on the `web-push` library: aes128gcm encryption (RFC 8291), a VAPID
 * `Authorization: vapid t=…, k=…` header (RFC 8292 §3) whose JWT has `aud` = the endpoint's
 * origin, `exp` 12 h ahead and `sub` = the subject, and the RFC 8030 `TTL`, `Urgency` and
 * `Topic` headers.
 *
 * It never throws on a push service's refusal or a network failure: 404 and 410 are `gone`,
 * everything else is `failed`. It logs nothing, so neither the subscription keys nor the payload
 * can leak into logs; the endpoint (a capability URL) is not echoed in `reason` either.
 *
 * @param options VAPID keys, an optional HTTPS agent and timeout.
 * @returns The sender.
 * @see RFC 8030 §5 (requesting push message delivery), RFC 8291, RFC 8292
 * @example
 * ```ts
 * const sender = createWebPushSender({ vapid: await loadVapidKeys({ store, production: false }) });
 * const result = await sender.send(subscription, payload, { ttlSeconds: 120, urgency: 'high' });
 * if (result.status === 'gone') await deletePushSubscription(store, owner, subscription.endpoint);
 * ```
 */
export function createWebPushSender(options: WebPushSenderOptions): PushSender {
  const timeout = options.timeoutMs ?? DEFAULT_PUSH_TIMEOUT_MS;
  const authorization = vapidAuthorizationCache(options.vapid, options.now ?? Date.now);

  return {
    async send(subscription, payload, { ttlSeconds, urgency, topic }) {
      try {
        const response = await webpush.sendNotification(subscription, payload, {
          // The VAPID header is ours, signed once per push service origin and reused (RFC 8292 §2
          // allows a JWT up to 24 h): signing it for every message was most of a send's CPU.
          vapidDetails: null as never,
          headers: { Authorization: authorization(subscription.endpoint) },
          contentEncoding: 'aes128gcm',
          TTL: Math.max(0, Math.floor(ttlSeconds)),
          urgency,
          timeout,
          ...(topic ? { topic } : {}),
          ...(options.agent ? { agent: options.agent } : {}),
        });
        return { status: 'sent', statusCode: response.statusCode };
      } catch (error) {
        return failure(error);
      }
    },
  };
}

/** Maps a rejection of `sendNotification` (a `WebPushError` with `statusCode`, or a socket error). */
function failure(error: unknown): PushSendResult {
  const statusCode = (error as { statusCode?: unknown } | null)?.statusCode;
  if (typeof statusCode === 'number') {
    // RFC 8030 §7.3: 404/410 mean the subscription expired or was removed by the user agent.
    return { status: statusCode === 404 || statusCode === 410 ? 'gone' : 'failed', statusCode };
  }
  const code = (error as { code?: unknown } | null)?.code;
  // web-push destroys a timed-out socket with a plain `Error('Socket timeout')`.
  const reason = typeof code === 'string' ? code : error instanceof Error && error.message === 'Socket timeout' ? 'ETIMEDOUT' : 'send_error';
  return { status: 'failed', reason };
}

/** VAPID JWTs are signed for 12 h and reused for 11, so one in use always has an hour left. */
const VAPID_JWT_SECONDS = 12 * 3600;
const VAPID_REUSE_SECONDS = 11 * 3600;

/**
 * The `Authorization: vapid t=…, k=…` header for an endpoint's origin (the JWT's `aud`), signed
 * once per origin and reused until an hour before it expires.
 * @see RFC 8292 §2 (the JWT: aud, exp at most 24 h, sub) and §3 (the vapid scheme)
 */
function vapidAuthorizationCache(vapid: WebPushSenderOptions['vapid'], now: () => number): (endpoint: string) => string {
  const cache = new Map<string, { header: string; reuseUntil: number }>();
  return (endpoint) => {
    const audience = new URL(endpoint).origin;
    const nowMs = now();
    const cached = cache.get(audience);
    if (cached && cached.reuseUntil > nowMs) return cached.header;
    const expiration = Math.floor(nowMs / 1000) + VAPID_JWT_SECONDS;
    const { Authorization } = webpush.getVapidHeaders(audience, vapid.subject, vapid.publicKey, vapid.privateKey, 'aes128gcm', expiration);
    cache.set(audience, { header: String(Authorization), reuseUntil: nowMs + VAPID_REUSE_SECONDS * 1000 });
    return String(Authorization);
  };
}
