import { z } from 'zod';
import type { ActionDisplay } from '../actions/index.ts';
import type { ApprovalParty, Outcome, PartyDisplay, RequestState } from './ciba.ts';
import { displayText } from './text.ts';

/** `POST /api/device/enroll/options` body. */
export const enrollOptionsBody = z.strictObject({
  enrollment_code: z.string().min(8).max(128),
});

/**
 * The AuthenticatorTransport values (WebAuthn Level 3 §5.8.4): what a registration response's
 * `response.transports` may name, and all the server keeps of it.
 */
export const AUTHENTICATOR_TRANSPORTS = ['usb', 'nfc', 'ble', 'smart-card', 'hybrid', 'internal'] as const;
/** One of {@link AUTHENTICATOR_TRANSPORTS}. */
export type AuthenticatorTransportName = (typeof AUTHENTICATOR_TRANSPORTS)[number];

/**
 * A registration response's `response.transports` (`getTransports()`, WebAuthn Level 3 §5.2.1.2): a
 * list of names. A client may name values this server does not know (§5.8.4 has clients ignore
 * them, and the server does), but a list of thousands, or one name of thousands of characters, is
 * no client's: the server would echo it in every prompt of the user.
 */
const transportsMember = z.array(z.string().max(32)).max(16);

/**
 * `POST /api/device/enroll/verify` body; `response` is a WebAuthn RegistrationResponseJSON, checked
 * here only where the server keeps what it says (`response.transports`, see {@link transportsMember});
 * the rest is verified by the WebAuthn library.
 */
export const enrollVerifyBody = z.strictObject({
  enrollment_code: z.string().min(8).max(128),
  response: z.record(z.string(), z.unknown()).superRefine((response, ctx) => {
    const inner = response.response;
    if (typeof inner !== 'object' || inner === null || !Object.hasOwn(inner, 'transports')) return;
    if (!transportsMember.safeParse((inner as Record<string, unknown>).transports).success) {
      ctx.addIssue({ code: 'custom', path: ['response', 'transports'], message: 'must be an array of at most 16 transport names of at most 32 characters' });
    }
  }),
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
  selected_code: z
    .string()
    .regex(/^[0-9]{2}$/, 'must be two digits')
    .optional(),
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
  /** `approval_request` for a new request; `request_expired` once it (or its approval) expired unused; `mandate_spend`: a receipt for one spend of a mandate that asks for receipts; `device_removed`: an operator removed one of the user's devices (`auth_req_id` then holds that device's id). */
  kind: 'approval_request' | 'request_expired' | 'mandate_spend' | 'device_removed';
  auth_req_id: string;
  /** One line, already cut to fit the payload limit. */
  summary: string;
}

// The approver's history and device management (`/api/device/history`, `/devices`, `/enrollments`).

/** `PATCH /api/device/devices/{device_id}` body: the device's new name. */
export const renameDeviceBody = z.strictObject({
  name: displayText(64),
});

/**
 * `POST /api/device/enrollments` body: the passkey's answer (an AuthenticationResponseJSON) to the
 * prompt of `POST /api/device/enrollments/options`. Adding a device takes a passkey, not only a session.
 */
export const createEnrollmentLinkBody = z.strictObject({
  response: z.record(z.string(), z.unknown()),
});

/** One of the user's devices, as `GET /api/device/devices` lists it. Times are ISO 8601. */
export interface DeviceSummary {
  device_id: string;
  name: string;
  created_at: string;
  /** The last time its passkey was used (a decision, or confirming a link for another device); null when never. */
  last_used_at: string | null;
  /** True for the device making the call. */
  this_device: boolean;
}

/**
 * The data of a `device` event on `GET /api/device/events`: one of the user's devices was removed,
 * by an operator (a lost device) or by the person from one of their devices. `this_device` marks
 * the stream's own device (its session is gone; the stream ends after this event);
 * `by_this_device` the device the person removed it from.
 */
export interface DeviceRemovedEvent {
  kind: 'device_removed';
  device_id: string;
  name: string;
  by: 'operator' | 'person';
  this_device: boolean;
  by_this_device: boolean;
}

/**
 * `POST /api/device/enrollments`: a one-time link that adds another device (passkey) to the
 * caller's own account, and the link as a QR code for a phone's camera.
 */
export interface DeviceEnrollmentLink {
  enrollment_url: string;
  /** Seconds until the link stops working (it also stops after one use). */
  expires_in: number;
  /** The link as a QR code (ISO/IEC 18004, byte mode, level M): `size` rows of `size` modules, `1` dark, `0` light, no quiet zone. */
  qr: { size: number; rows: string[] };
}

/** What the person did about a request in their history; `null` when they did nothing (it expired, or someone else decided). */
export interface HistoryPart {
  decision: 'approved' | 'denied' | 'reported';
  /** The party they approved or denied as (`customer`, `role:reviewer:finance`). */
  party: ApprovalParty;
  /** ISO 8601. */
  at: string;
}

/**
 * One past request in the person's history (`GET /api/device/history`): what it was, who asked,
 * what the person did, and what became of it, as the server last recorded it. The history keeps
 * its own copy, so it outlives the request's record.
 */
export interface HistoryEntry {
  auth_req_id: string;
  /** As of now: an approval or a pending request whose deadline passed reads `expired`. */
  state: RequestState;
  client_name: string;
  binding_message: string | null;
  actions: ActionDisplay[];
  tier: string;
  approvals: PartyDisplay[];
  outcome: Outcome | null;
  /** How a denied request was denied: a party said no, "this wasn't me", or a wrong number-matching code. */
  denial: 'denied' | 'fraud_reported' | 'wrong_binding_code' | null;
  your_part: HistoryPart | null;
  /** ISO 8601: when the request was made, and when it entered this history (the list's order, newest first). */
  created_at: string;
  recorded_at: string;
  /** ISO 8601: the last change recorded (decided, redeemed, outcome, expired). */
  updated_at: string;
}
