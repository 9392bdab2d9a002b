import { z } from 'zod';
import { actionDisplay, approvalParty, mandateView, orNull, outcome, partyDisplay, passkeyPrompt, requestDisplay, requestState } from './display-schemas.ts';

// Answers of the approver PWA's API (docs/design.md "Approver PWA"), written from the TypeScript
// types in shared/src/schemas/device.ts and mandate-view.ts and the handlers in
// server/src/devices/.

/** `whoAmI` (devices/routes.ts): `POST /enroll/verify` and `GET /me`. */
export const whoAmI = z.looseObject({
  user: z.looseObject({ sub: z.string(), display_name: z.string() }),
  device: z.looseObject({ device_id: z.string(), name: z.string() }),
  vapid_public_key: z.string(),
});

/** WebAuthn registration options (`PublicKeyCredentialCreationOptionsJSON`, WebAuthn Level 3 §5.4). */
export const registrationOptions = z.looseObject({
  challenge: z.string(),
  rp: z.looseObject({ id: z.string().optional(), name: z.string() }),
  user: z.looseObject({ id: z.string(), name: z.string(), displayName: z.string() }),
  pubKeyCredParams: z.array(z.looseObject({ type: z.literal('public-key'), alg: z.number().int() })),
});

/** `RequestView`: one request and the passkey prompts of this device (`options` null unless pending). */
export const requestView = z.looseObject({
  request: requestDisplay,
  options: z
    .looseObject({
      approve: orNull(passkeyPrompt),
      deny: passkeyPrompt,
      approve_by_code: z.record(z.string(), passkeyPrompt).optional(),
    })
    .nullable(),
});

/** `{request: display}`: a decision's or a report's answer. */
export const decidedRequest = z.looseObject({ request: requestDisplay });

/** `GET /requests`: the user's own pending requests and their reviewer queue. */
export const inbox = z.looseObject({ requests: z.array(requestDisplay) });

/** `HistoryEntry` (shared/src/schemas/device.ts). */
export const historyEntry = z.looseObject({
  auth_req_id: z.string(),
  state: requestState,
  client_name: z.string(),
  binding_message: z.string().nullable(),
  actions: z.array(actionDisplay),
  tier: z.string(),
  approvals: z.array(partyDisplay),
  outcome: orNull(outcome),
  denial: z.enum(['denied', 'fraud_reported', 'wrong_binding_code']).nullable(),
  your_part: z.looseObject({ decision: z.enum(['approved', 'denied', 'reported']), party: approvalParty, at: z.iso.datetime() }).nullable(),
  created_at: z.iso.datetime(),
  recorded_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});

/** `GET /history`. */
export const history = z.looseObject({ entries: z.array(historyEntry) });

/** `DeviceSummary` (shared/src/schemas/device.ts). */
export const deviceSummary = z.looseObject({
  device_id: z.string(),
  name: z.string(),
  created_at: z.iso.datetime(),
  last_used_at: z.iso.datetime().nullable(),
  this_device: z.boolean(),
});

/** `GET /devices`. */
export const deviceList = z.looseObject({ devices: z.array(deviceSummary) });

/** `DeviceEnrollmentLink`: a one-time link for another device, and its QR code. */
export const deviceEnrollmentLink = z.looseObject({
  enrollment_url: z.url(),
  expires_in: z.number().int().positive(),
  qr: z.looseObject({ size: z.number().int().positive(), rows: z.array(z.string().regex(/^[01]+$/)) }),
});

/** `GET /mandates`. */
export const mandateList = z.looseObject({ mandates: z.array(mandateView) });
/** `GET /mandates/{auth_req_id}`: the mandate and, while active, its revoke prompt. */
export const mandateDetail = z.looseObject({ mandate: mandateView, options: z.looseObject({ revoke: passkeyPrompt.optional() }) });
/** `POST /mandates/{auth_req_id}/revoke`. */
export const mandateRevoked = z.looseObject({ mandate: mandateView });
