import { ACTION_TYPE_NAMES, CIBA_GRANT_TYPE } from '@countersign/shared';
import { Hono } from 'hono';
import type { Deps } from '../deps.ts';

/**
 * OpenID Provider metadata with the CIBA fields, and the public signing keys.
 * @see OpenID Connect Discovery 1.0 §3, CIBA Core 1.0 §4, RFC 9396 §10
 */
export function discoveryRoutes(deps: Deps): Hono {
  const issuer = deps.config.publicUrl;
  const metadata = {
    issuer,
    token_endpoint: `${issuer}/token`,
    backchannel_authentication_endpoint: `${issuer}/bc-authorize`,
    jwks_uri: `${issuer}/jwks.json`,
    grant_types_supported: [CIBA_GRANT_TYPE],
    response_types_supported: [],
    scopes_supported: ['openid'],
    subject_types_supported: ['public'],
    token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    backchannel_authentication_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
    backchannel_token_delivery_modes_supported: ['poll'],
    backchannel_user_code_parameter_supported: false,
    authorization_details_types_supported: ACTION_TYPE_NAMES,
    id_token_signing_alg_values_supported: ['ES256'],
    claims_supported: ['sub', 'iss', 'aud', 'exp', 'iat', 'auth_time', 'at_hash', 'urn:openid:params:jwt:claim:auth_req_id'],
  };
  const app = new Hono();
  app.get('/.well-known/openid-configuration', (c) => c.json(metadata, 200, { 'Cache-Control': 'public, max-age=300' }));
  app.get('/jwks.json', (c) => c.json(deps.keyRing.jwks(), 200, { 'Cache-Control': 'public, max-age=300' }));
  return app;
}
