import { z } from 'zod';
import { actionDisplay, mandateView, orNull, requestDisplay, requestState } from './display-schemas.ts';

// Answers of the operator API (docs/design.md "Operator"), written from the records in
// server/src/clients/, users/, tenant-policy/, audit/ and the handlers in server/src/admin/. The
// records keep epoch ms; every `at` and `…_at` of an admin answer is RFC 3339 (admin/iso-times.ts).

/** A registered client (`ClientRecord` without its secret's hash); `client_secret` once, at creation. */
export const clientRecord = z.looseObject({
  client_id: z.string(),
  tenant: z.string(),
  name: z.string(),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt']),
  token_delivery_mode: z.enum(['poll', 'ping', 'push']),
  profile: z.enum(['default', 'fapi-ciba']),
  backchannel_client_notification_endpoint: z.string().optional(),
  created_at: z.iso.datetime(),
  client_secret: z.string().optional(),
});

/** `UserRecord` (server/src/users/users.ts). */
export const userRecord = z.looseObject({
  tenant: z.string(),
  sub: z.string(),
  display_name: z.string(),
  created_at: z.iso.datetime(),
  roles: z.array(z.string()),
});

/** `GET /users/{sub}`: the user and the clients blocked for them ("this wasn't me"). */
export const userWithBlocks = z.looseObject({ user: userRecord, blocks: z.array(z.looseObject({ client_id: z.string(), auth_req_id: z.string(), blocked_at: z.iso.datetime() })) });

/** `POST /users/{sub}/enrollments`: a single-use enrollment, 15 minutes. */
export const enrollment = z.looseObject({
  enrollment_code: z.string(),
  enrollment_url: z.url(),
  expires_in: z.number().int().positive(),
});

/** `GET /requests?state=pending`: pending requests, soonest deadline first; `next_cursor` (opaque) the next page's `cursor`, null on the last. */
export const pendingRequests = z.looseObject({
  requests: z.array(
    z.looseObject({
      auth_req_id: z.string(),
      tenant: z.string(),
      sub: z.string(),
      client_id: z.string(),
      client_name: z.string(),
      binding_message: z.string().nullable(),
      summary: z.string(),
      created_at: z.iso.datetime(),
      expires_at: z.iso.datetime(),
      seconds_left: z.number().int().min(0),
      test: z.boolean(),
    }),
  ),
  truncated: z.boolean(),
  next_cursor: z
    .string()
    .regex(/^[A-Za-z0-9_-]+$/)
    .nullable(),
});

/** `GET /requests/{auth_req_id}`: the stored request (never its token's `jti` or `binding_code`) and its display. */
export const adminRequestView = z.looseObject({
  request: z.looseObject({ auth_req_id: z.string(), tenant: z.string(), state: requestState, client_id: z.string(), sub: z.string() }),
  display: requestDisplay,
});

/** `StoredAuditEvent` (server/src/audit/audit-event.ts): one event of a tenant's hash chain. */
export const auditEvent = z.looseObject({
  id: z.string(),
  seq: z.number().int().min(0),
  prev_hash: z.string(),
  type: z.string(),
  reason: z.string().optional(),
  tenant: z.string(),
  auth_req_id: z.string().optional(),
  client_id: z.string().optional(),
  sub: z.string().optional(),
  device_id: z.string().optional(),
  channel: z.enum(['agent', 'device', 'admin', 'system', 'push', 'notification']),
  at: z.iso.datetime(),
  detail: z.record(z.string(), z.unknown()).optional(),
});

/** `GET /audit`: events in chain order. */
export const auditEvents = z.looseObject({ events: z.array(auditEvent) });

/** `TenantPolicyView` (server/src/tenant-policy/policy-view.ts); the revision is also the `ETag`. */
export const tenantPolicyView = z.looseObject({
  tenant: z.string(),
  revision: z.number().int().min(0),
  policy: z.looseObject({}),
  source: z.enum(['tenant', 'default']),
  updated_at: z.string().optional(),
  updated_by: z.string().optional(),
});

/** `POST /test-requests`: a request of the tenant's console client. */
export const testRequestCreated = z.looseObject({
  auth_req_id: z.string(),
  client_id: z.string(),
  expires_in: z.number().int().positive(),
  interval: z.number().int().positive(),
  binding_code: z.string().optional(),
});

/** `GET /test-requests/samples`. */
export const testRequestSamples = z.looseObject({
  samples: z.array(z.looseObject({ type: z.string(), label: z.string(), display: z.looseObject({ title: z.string(), warnings: z.array(z.string()), fields: z.array(z.looseObject({})) }) })),
});

/** `POST /mandates/{auth_req_id}/revoke` (admin): the mandate now revoked, or null once its record is gone. */
export const adminMandateRevoked = z.looseObject({ mandate: orNull(mandateView) });

/** `GET /mandates/{auth_req_id}/evidence`: `MandateEvidence` (server/src/mandates/evidence/export-evidence.ts, docs/mandates.md). */
export const mandateEvidence = z.looseObject({
  format: z.literal('countersign-mandate-evidence/1'),
  exported_at: z.iso.datetime(),
  tenant: z.string(),
  auth_req_id: z.string(),
  client_id: z.string(),
  client_name: z.string(),
  sub: z.string(),
  authorization_details: z.array(z.looseObject({ type: z.string() })).min(1),
  details_hash: z.string(),
  display: actionDisplay,
  status: z.enum(['pending', 'active', 'revoked', 'expired']),
  revocation: z.looseObject({ at: z.string(), by: z.string() }).nullable(),
  approvals: z.array(z.looseObject({ party: z.string(), sub: z.string(), device_id: z.string(), credential_id: z.string(), approved_at: z.string(), evidence_hash: z.string().nullable() })),
  spends: z.array(z.looseObject({ redemption_id: z.string(), transaction_id: z.string(), amount_minor: z.number().int(), currency: z.string(), payee: z.looseObject({ id: z.string(), name: z.string() }), payment_hash: z.string() })),
  audit: z.array(auditEvent),
});
