import { z } from 'zod';
import { mandateView, orNull, requestDisplay, requestState } from './display-schemas.ts';

// Answers of the operator API (DESIGN.md "Operator"), written from the records in
// server/src/clients/, users/, tenant-policy/, audit/ and the handlers in server/src/admin/.

/** A registered client (`ClientRecord` without its secret's hash); `client_secret` once, at creation. */
export const clientRecord = z.looseObject({
  client_id: z.string(),
  tenant: z.string(),
  name: z.string(),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'client_secret_post', 'private_key_jwt']),
  token_delivery_mode: z.enum(['poll', 'ping', 'push']),
  profile: z.enum(['default', 'fapi-ciba']),
  backchannel_client_notification_endpoint: z.string().optional(),
  created_at: z.number().int().describe('Epoch ms.'),
  client_secret: z.string().optional(),
});

/** `UserRecord` (server/src/users/users.ts). */
export const userRecord = z.looseObject({
  tenant: z.string(),
  sub: z.string(),
  display_name: z.string(),
  created_at: z.number().int().describe('Epoch ms.'),
  roles: z.array(z.string()),
});

/** `GET /users/{sub}`: the user and the clients blocked for them ("this wasn't me"). */
export const userWithBlocks = z.looseObject({ user: userRecord, blocks: z.array(z.looseObject({})) });

/** `POST /users/{sub}/enrollments`: a single-use enrollment, 15 minutes. */
export const enrollment = z.looseObject({
  enrollment_code: z.string(),
  enrollment_url: z.url(),
  expires_in: z.number().int().positive(),
});

/** `GET /requests?state=pending`: pending requests, soonest deadline first. */
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
    }),
  ),
  truncated: z.boolean(),
});

/** `GET /requests/{auth_req_id}`: the stored request (never its token's `jti` or `binding_code`) and its display. */
export const adminRequestView = z.looseObject({
  request: z.looseObject({ auth_req_id: z.string(), tenant: z.string(), state: requestState, client_id: z.string(), sub: z.string() }),
  display: requestDisplay,
});

/** `GET /audit`: events in chain order (server/src/audit/stored-event.ts). */
export const auditEvents = z.looseObject({
  events: z.array(z.looseObject({ type: z.string(), at: z.string(), channel: z.string(), reason: z.string().optional() })),
});

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

/** `GET /mandates/{auth_req_id}/evidence`: the signed evidence bundle (docs/mandates.md). */
export const mandateEvidence = z.looseObject({ auth_req_id: z.string() });

