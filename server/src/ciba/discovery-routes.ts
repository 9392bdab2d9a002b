import { ACTION_TYPE_NAMES, CIBA_GRANT_TYPE, CLIENT_SIGNING_ALGS, TOKEN_ENDPOINT_AUTH_METHODS } from '@countersign/shared';
import { Hono } from 'hono';
import type { Deps } from '../deps.ts';

/**
 * This server's metadata: OpenID Provider metadata with every CIBA field, served the same at
 * both well-known addresses.
 * @see OpenID Connect Discovery 1.0 §3, RFC 8414 §2, CIBA Core 1.0 §4, RFC 9396 §10
 */
export function providerMetadata(issuer: string) {
  return {
    issuer,
    token_endpoint: `${issuer}/token`,
    backchannel_authentication_endpoint: `${issuer}/bc-authorize`,
    jwks_uri: `${issuer}/jwks.json`,
    grant_types_supported: [CIBA_GRANT_TYPE],
    response_types_supported: [],
    scopes_supported: ['openid'],
    subject_types_supported: ['public'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'at_hash', 'urn:openid:params:jwt:claim:auth_req_id'],
    id_token_signing_alg_values_supported: ['ES256'],
    token_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    token_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGS],
    // CIBA Core §4
    backchannel_token_delivery_modes_supported: ['poll', 'ping', 'push'],
    backchannel_authentication_request_signing_alg_values_supported: [...CLIENT_SIGNING_ALGS],
    backchannel_user_code_parameter_supported: false,
    backchannel_authentication_endpoint_auth_methods_supported: [...TOKEN_ENDPOINT_AUTH_METHODS],
    backchannel_authentication_endpoint_auth_signing_alg_values_supported: [...CLIENT_SIGNING_ALGS],
    request_parameter_supported: true,
    request_uri_parameter_supported: false,
    // RFC 9396 §10
    authorization_details_types_supported: ACTION_TYPE_NAMES,
    // Approval tokens are JWTs signed like ID tokens (RFC 9068 §2.1).
    access_token_signing_alg_values_supported: ['ES256'],
  };
}

/** The discovery documents and the public signing keys. */
export function discoveryRoutes(deps: Deps): Hono {
  const metadata = providerMetadata(deps.config.publicUrl);
  const cache = { 'Cache-Control': 'public, max-age=300' };
  const app = new Hono();
  app.get('/.well-known/openid-configuration', (c) => c.json(metadata, 200, cache));
  app.get('/.well-known/oauth-authorization-server', (c) => c.json(metadata, 200, cache));
  app.get('/jwks.json', (c) => c.json(deps.keyRing.jwks(), 200, cache));
  return app;
}
