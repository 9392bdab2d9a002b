import { CIBA_GRANT_TYPE } from '@countersign/shared';
import { z } from 'zod';
import { approvalParty, escalationView, orNull, outcome, requestState } from './display-schemas.ts';

// The agent and executor surface (docs/design.md "Agent and executor", fixed). The form bodies are
// read by `readForm` and checked field by field in server/src/ciba/ (no zod object exists for
// them), so they are written here from parse-backchannel-request.ts and token-route.ts; the JSON
// bodies (`redeemBody`, `outcomeBody`) are the route's own schemas, imported in operations.

/** Client authentication in a form (RFC 6749 §2.3.1 `client_secret_post`, RFC 7523 §2.2 `private_key_jwt`). */
export const clientAuthForm = {
  client_id: z.string().optional(),
  client_secret: z.string().optional(),
  client_assertion_type: z.literal('urn:ietf:params:oauth:client-assertion-type:jwt-bearer').optional(),
  client_assertion: z.string().optional(),
};

/** `POST /bc-authorize` form (CIBA Core §7.1). `authorization_details` is a JSON array, as a string. */
export const bcAuthorizeForm = z.object({
  scope: z.string().describe('Space-separated; must contain `openid`.'),
  login_hint: z.string().describe('The `sub` of the user asked.'),
  authorization_details: z.string().describe('RFC 9396 authorization details: a JSON array of 1 to 10 actions.'),
  binding_message: z.string().max(64).optional(),
  requested_expiry: z
    .string()
    .regex(/^[0-9]+$/)
    .optional()
    .describe('Seconds.'),
  client_notification_token: z.string().optional().describe('Required for ping and push clients.'),
  request: z.string().optional().describe('A signed request object (CIBA Core §7.1.1).'),
  acr_values: z.string().optional().describe('Ignored.'),
  ...clientAuthForm,
});

/** `POST /token` form (CIBA Core §10.1). */
export const tokenForm = z.object({
  grant_type: z.literal(CIBA_GRANT_TYPE),
  auth_req_id: z.string(),
  ...clientAuthForm,
});

/** `POST /requests/{auth_req_id}` form: nothing but client authentication. */
export const clientViewForm = z.strictObject(clientAuthForm);

/** `BcAuthorizeResponse` (CIBA Core §7.3); seconds. */
export const bcAuthorizeResponse = z.looseObject({
  auth_req_id: z.string(),
  expires_in: z.number().int().positive(),
  interval: z.number().int().positive(),
  binding_code: z
    .string()
    .regex(/^[0-9]{2}$/)
    .optional(),
});

/** `TokenResponse` (CIBA Core §10.1.1, RFC 9396 §7). */
export const tokenResponse = z.looseObject({
  access_token: z.string(),
  token_type: z.literal('Bearer'),
  expires_in: z.number().int().positive(),
  id_token: z.string(),
  authorization_details: z.array(z.looseObject({ type: z.string() })).min(1),
});

/** `RedeemResponse`: the server's copy of the action, to run exactly once. */
export const redeemResponse = z.looseObject({
  status: z.literal('redeemed'),
  redemption_id: z.string(),
  idempotency_key: z.string(),
  authorization_details: z.array(z.looseObject({ type: z.string() })).min(1),
  redeemed_at: z.iso.datetime(),
});

/** `POST /redemptions/{redemption_id}/outcome` answer. */
export const outcomeResponse = z.looseObject({
  redemption_id: z.string(),
  auth_req_id: z.string(),
  outcome: z.looseObject({ status: z.enum(['succeeded', 'failed']), reference: z.string().optional(), reason: z.string().optional() }),
});

/** `ClientRequestView`: the client's view of one of its requests. */
export const clientRequestView = z.looseObject({
  auth_req_id: z.string(),
  state: requestState,
  expires_at: z.iso.datetime(),
  outcome: orNull(outcome),
  awaiting: z.array(approvalParty),
  escalation: orNull(escalationView).optional(),
  expiry_reason: z.enum(['escalation_exhausted', 'mandate_revoked']).nullable().optional(),
});

/** OpenID Provider metadata (OpenID Connect Discovery 1.0 §3, RFC 8414 §2, CIBA Core §4). */
export const providerMetadata = z.looseObject({
  issuer: z.url(),
  token_endpoint: z.url(),
  backchannel_authentication_endpoint: z.url(),
  jwks_uri: z.url(),
  grant_types_supported: z.array(z.string()),
  backchannel_token_delivery_modes_supported: z.array(z.enum(['poll', 'ping', 'push'])),
  authorization_details_types_supported: z.array(z.string()),
  token_endpoint_auth_methods_supported: z.array(z.string()),
  id_token_signing_alg_values_supported: z.array(z.string()),
});

/** The public signing keys (RFC 7517 §5), ES256 with `kid`. */
export const jwks = z.looseObject({
  keys: z.array(z.looseObject({ kty: z.string(), kid: z.string(), alg: z.string().optional() })).min(1),
});

/** `GET /healthz`. */
export const health = z.strictObject({ status: z.literal('ok') });
/** `GET /readyz` when the store answers. */
export const readiness = z.strictObject({ status: z.literal('ready'), store: z.enum(['memory', 'redis']) });
