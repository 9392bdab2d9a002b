import { exportJWK } from 'jose';
import { expect } from 'vitest';
import { clientKey } from './client-jwt.ts';
import type { Harness } from './harness.ts';

// What test/agent-package.test.ts hands the packed agent's script: a client of each authentication method.

/** Registers a client on `harness` for `method`; answers its id and the script's `auth` option. */
export async function registerClient(harness: Harness, method: string): Promise<{ clientId: string; auth: Record<string, unknown> }> {
  if (method === 'private_key_jwt') {
    const key = await clientKey('ES256');
    const { body } = await harness.admin('POST', '/clients', { name: 'Packaged agent', token_endpoint_auth_method: method, jwks: { keys: [key.publicJwk] } });
    // A private JWK straight from JSON, as a user keeps one in a secret store.
    return { clientId: body.client_id, auth: { method, privateKey: { ...(await exportJWK(key.privateKey)), kid: key.publicJwk.kid } } };
  }
  const { status, body } = await harness.admin('POST', '/clients', { name: 'Packaged agent', ...(method === 'client_secret_basic' ? {} : { token_endpoint_auth_method: method }) });
  expect(status).toBe(201);
  return { clientId: body.client_id, auth: { method, clientSecret: body.client_secret } };
}
