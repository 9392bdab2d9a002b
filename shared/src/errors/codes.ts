/**
 * The stable error codes of Countersign, with the HTTP status each one answers with by default.
 *
 * Agent-facing codes are the OAuth 2.0 / CIBA words (RFC 6749 §5.2, CIBA Core 1.0 §11 and §13,
 * RFC 9396 §5); the rest are Countersign's own snake_case reason codes, also used in the audit trail.
 * Callers (agents, the PWA) `switch` on the code, never on the description.
 */
export const ERROR_CODES = {
  // RFC 6749 §5.2 and CIBA Core §11 / §13
  invalid_request: 400,
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  invalid_scope: 400,
  access_denied: 400,
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  unknown_user_id: 400,
  invalid_binding_message: 400,
  invalid_user_code: 400,
  missing_user_code: 400,
  // RFC 9396 §5
  invalid_authorization_details: 400,
  // RFC 7591 §3.2.2: a client metadata value the server refuses (an endpoint it will not call)
  invalid_client_metadata: 400,
  // RFC 6750 §3.1
  invalid_token: 401,
  // Countersign: the gate
  transaction_conflict: 409,
  approval_mismatch: 400,
  stale_record: 409,
  already_redeemed: 409,
  outcome_conflict: 409,
  request_not_pending: 409,
  // Countersign: standing mandates (docs/mandates.md); a spend refused changes nothing
  /** The spend does not fit the mandate: over its total or count for the period, outside the per-spend range, or a currency it does not list. */
  mandate_exceeded: 403,
  /** The spend's payee (id and name together) is not one the mandate allows. */
  payee_not_allowed: 403,
  /** The mandate is not running: before its `starts_at`, or past its `ends_at`. */
  mandate_expired: 403,
  /** The mandate was revoked; no spend lands after the revocation. */
  mandate_revoked: 403,
  // Countersign: who must say yes (policy tiers, reviewers, velocity, push fatigue)
  /** Over a velocity limit of the policy (count or amount per currency in a sliding window). */
  velocity_exceeded: 429,
  /** The user already has as many pending requests as the policy allows. */
  too_many_pending: 429,
  /** The user reported this client ("this wasn't me"); refused until an operator clears it. */
  client_blocked: 403,
  /** Number matching: the code picked on the device is not the one the agent was given; the request is denied. */
  wrong_binding_code: 400,
  /** This party (the customer, or a reviewer role) has already approved this request. */
  party_already_approved: 409,
  /**
   * Escalation: the request's window for this party passed and it was handed to the next role of its
   * tier's chain; this party can no longer approve it (docs/escalation.md).
   */
  party_escalated: 409,
  /**
   * The request's tier needs a role (e.g. `reviewer:finance`) that nobody in the tenant holds, other
   * than the user the request is for (who may not review their own request): nobody could approve it.
   */
  no_approver: 400,
  // Countersign: per-tenant policy (admin API)
  /** The policy sent to `PUT /api/admin/tenants/{tenant}/policy` is not valid; the body lists each problem (`problems`). Nothing was stored. */
  invalid_policy: 400,
  /** The tenant policy's revision is not the one the change expected (`expected_revision`, `If-Match`): someone changed it meanwhile. */
  revision_conflict: 409,
  // Countersign: device and operator surfaces
  invalid_origin: 403,
  login_required: 401,
  invalid_enrollment_code: 400,
  invalid_assertion: 400,
  counter_regression: 400,
  /** Enrollment: the passkey's credential id is registered already, to a user of this tenant (WebAuthn Level 3 §7.1 step 26). */
  credential_already_registered: 409,
  /** Enrollment or an add-device link: the user already has `MAX_DEVICES_PER_USER` devices; one must be removed first. */
  too_many_devices: 409,
  not_found: 404,
  unsupported_media_type: 415,
  request_too_large: 413,
  /**
   * Over a rate limit of the server (per client, per source address, per device session); the
   * answer carries `Retry-After` in seconds. A client's `/token` flood answers `slow_down` instead.
   */
  too_many_requests: 429,
  /** Not sent by the server (it sends `too_many_requests`); kept so code that switches on it still compiles. */
  rate_limited: 429,
  // Generic
  server_error: 500,
  temporarily_unavailable: 503,
} as const;

/** One of the stable error codes of {@link ERROR_CODES}. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `value` is one of Countersign's stable error codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERROR_CODES, value);
}
