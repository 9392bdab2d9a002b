import { z } from 'zod';
import { displayText } from './text.ts';

/** `POST /api/device/enroll/options` body. */
export const enrollOptionsBody = z.strictObject({
  enrollment_code: z.string().min(8).max(128),
});

/** `POST /api/device/enroll/verify` body; `response` is a WebAuthn RegistrationResponseJSON. */
export const enrollVerifyBody = z.strictObject({
  enrollment_code: z.string().min(8).max(128),
  response: z.record(z.string(), z.unknown()),
  device_name: displayText(64).optional(),
});

/** A browser `PushSubscription.toJSON()` (Push API §7, RFC 8291 keys in base64url). */
export const pushSubscription = z.strictObject({
  endpoint: z.url({ protocol: /^https?$/ }).max(2048),
  expirationTime: z.number().int().nonnegative().nullable().optional(),
  keys: z.strictObject({
    /** The browser's P-256 ECDH public key, 65 bytes uncompressed, base64url. */
    p256dh: z.string().regex(/^[A-Za-z0-9_-]{86,88}$/, 'must be a base64url P-256 public key'),
    /** The 16-byte authentication secret, base64url. */
    auth: z.string().regex(/^[A-Za-z0-9_-]{22,24}$/, 'must be a base64url 16-byte secret'),
  }),
});
/** A validated `PushSubscription`. */
export type PushSubscriptionJSON = z.infer<typeof pushSubscription>;

/**
 * `POST /api/device/requests/{auth_req_id}/decision` body. `selected_code` is the code the person
 * picked when the request asks for number matching (with the approve options of that code); the
 * body carries no action: the passkey signs the stored `details_hash`, so nobody can change the action.
 */
export const decisionBody = z.strictObject({
  decision: z.enum(['approve', 'deny']),
  response: z.record(z.string(), z.unknown()),
  selected_code: z.string().regex(/^[0-9]{2}$/, 'must be two digits').optional(),
});

/**
 * `POST /api/device/requests/{auth_req_id}/report` body ("this wasn't me"): an assertion made with
 * the request's `deny` options. It denies the request, records a fraud report and blocks the client
 * from asking this user again until an operator clears it.
 */
export const reportBody = z.strictObject({
  response: z.record(z.string(), z.unknown()),
});
/** A decision on one request. */
export type Decision = z.infer<typeof decisionBody>['decision'];

/** The Web Push payload (≤ 2 KB of JSON): the request id and a one-line summary. */
export interface PushPayload {
  /** `approval_request` for a new request; `request_expired` once it (or its approval) expired unused. */
  kind: 'approval_request' | 'request_expired';
  auth_req_id: string;
  /** One line, already cut to fit the payload limit. */
  summary: string;
}
