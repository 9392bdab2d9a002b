import { z } from 'zod';
import { displayText, identifier } from './text.ts';

/** A tenant name: lower-case letters, digits and `-`, 1 to 40 characters. */
export const tenantName = z.string().regex(/^[a-z0-9][a-z0-9-]{0,39}$/, 'must be lower-case letters, digits and -');

/** A public JWK as a client registers it (RFC 7517 §4); private members are refused. */
export const publicJwk = z.looseObject({ kty: z.enum(['EC', 'RSA', 'OKP']), kid: z.string().min(1).max(128).optional() }).refine((jwk) => !['d', 'p', 'q', 'dp', 'dq', 'qi', 'k'].some((member) => member in jwk), 'must be a public key (no private members)');

/** A client's JWK Set (RFC 7517 §5), for `private_key_jwt` and signed authentication requests. */
export const clientJwks = z.strictObject({ keys: z.array(publicJwk).min(1).max(10) });

/** How a client authenticates at the token, backchannel and redemption endpoints (RFC 7591 §2). */
export const TOKEN_ENDPOINT_AUTH_METHODS = ['client_secret_basic', 'client_secret_post', 'private_key_jwt'] as const;

/** Algorithms accepted for `private_key_jwt` assertions and signed authentication requests (FAPI-CIBA §5.2.2). */
export const CLIENT_SIGNING_ALGS = ['ES256', 'PS256'] as const;

/**
 * `POST /api/admin/clients` body: client metadata in the words of RFC 7591 §2 and CIBA Core §4.
 * `profile: 'fapi-ciba'` asks for the FAPI-CIBA profile: `private_key_jwt`, signed authentication
 * requests, and no push mode.
 */
export const createClientBody = z
  .strictObject({
    name: displayText(80),
    token_delivery_mode: z.enum(['poll', 'ping', 'push']).default('poll'),
    backchannel_client_notification_endpoint: z
      .url({ protocol: /^https?$/ })
      .max(2048)
      .optional(),
    token_endpoint_auth_method: z.enum(TOKEN_ENDPOINT_AUTH_METHODS).default('client_secret_basic'),
    jwks: clientJwks.optional(),
    backchannel_authentication_request_signing_alg: z.enum(CLIENT_SIGNING_ALGS).optional(),
    profile: z.enum(['default', 'fapi-ciba']).default('default'),
    tenant: tenantName.default('default'),
  })
  .superRefine((client, context) => {
    const problem = (message: string) => context.addIssue({ code: 'custom', message });
    if (client.token_delivery_mode !== 'poll' && !client.backchannel_client_notification_endpoint) {
      problem('ping and push clients need a backchannel_client_notification_endpoint');
    }
    if ((client.token_endpoint_auth_method === 'private_key_jwt' || client.backchannel_authentication_request_signing_alg) && !client.jwks) {
      problem('private_key_jwt and signed authentication requests need jwks');
    }
    if (client.profile === 'fapi-ciba') {
      if (client.token_delivery_mode === 'push') problem('the FAPI-CIBA profile does not allow the push mode');
      if (client.token_endpoint_auth_method !== 'private_key_jwt') problem('the FAPI-CIBA profile needs private_key_jwt');
      if (!client.backchannel_authentication_request_signing_alg) problem('the FAPI-CIBA profile needs signed authentication requests');
    }
  });

/**
 * A user's role in a tenant, as the policy names it in a tier's approvers: a kind and an optional
 * area, lower-case, e.g. `reviewer:finance`. No braces, so it can sit in a store key.
 */
export const roleName = z.string().regex(/^[a-z][a-z0-9-]{0,31}(:[a-z0-9-]{1,32})?$/, 'must look like reviewer:finance (lower-case letters, digits, -)');

/** A user's roles: at most 16, each once. */
export const roleList = z
  .array(roleName)
  .max(16)
  .refine((roles) => new Set(roles).size === roles.length, 'must not repeat a role');

/**
 * `POST /api/admin/users` body. `sub` is what agents send as `login_hint`. `roles` are given when
 * the user is created; posting an existing user changes nothing (use `PUT …/roles`).
 */
export const createUserBody = z.strictObject({
  sub: identifier(128),
  display_name: displayText(80).optional(),
  tenant: tenantName.default('default'),
  roles: roleList.default([]),
});

/** `PUT /api/admin/users/{sub}/roles` body: the user's roles in the tenant, replacing the old ones. */
export const setRolesBody = z.strictObject({
  roles: roleList,
  tenant: tenantName.default('default'),
});

/** `POST /api/admin/users/{sub}/enrollments` body (optional). */
export const createEnrollmentBody = z.strictObject({
  tenant: tenantName.default('default'),
});
