import { afterEach, beforeEach, expect } from 'vitest';
import { basic, epoch, formBody, requestClaims } from './client-jwt.ts';
import { esKey, psKey } from './client-keys.ts';
import { createHarness, type EnrolledUser, type Harness } from './harness.ts';
import { payment } from './payment.ts';

/**
 * The set-up of the signed authentication request tests (`test/signed-request-*.test.ts`): a
 * harness with a client that must sign, one that may, and a FAPI-CIBA one (their keys:
 * `client-keys.ts`), and the calls they make. The state is held in exported bindings, which ES
 * modules keep live: a test that imports `harness` or `signer` reads the one its `beforeEach` set up.
 */

export const FORM = 'application/x-www-form-urlencoded';

export let harness: Harness;
export let customer: EnrolledUser;
/** client_secret_basic, keys ES256 and PS256, registered to sign ES256: a signed request is required. */
export let signer: { client_id: string; client_secret: string };
/** client_secret_basic with keys but no registered algorithm: signing is optional. */
export let optional: { client_id: string; client_secret: string };
/** FAPI-CIBA: private_key_jwt and requests signed PS256. */
export let fapi: string;

async function register(body: Record<string, unknown>) {
  const { status, body: client } = await harness.admin('POST', '/clients', { name: 'Agent', ...body });
  expect(status, JSON.stringify(client)).toBe(201);
  return client as { client_id: string; client_secret: string };
}

/** A fresh harness on `storeKind` before each test of the calling `describe`, with the three clients and a customer. */
export function useSignedRequestWorld(storeKind: 'memory' | 'redis'): void {
  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    const jwks = { keys: [esKey.publicJwk, psKey.publicJwk] };
    signer = await register({ jwks, backchannel_authentication_request_signing_alg: 'ES256' });
    optional = await register({ jwks });
    fapi = (await register({ profile: 'fapi-ciba', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [psKey.publicJwk] }, backchannel_authentication_request_signing_alg: 'PS256' })).client_id;
  });
  afterEach(() => harness.close());
}

/** The authentication request parameters, as claims. */
const params = (overrides: Record<string, unknown> = {}) => ({
  scope: 'openid',
  login_hint: customer.sub,
  binding_message: 'Order 1042',
  authorization_details: payment(),
  requested_expiry: 120,
  ...overrides,
});
/** The claims of a request object of `clientId` (the signer by default), with overrides (undefined removes a claim). */
export const claims = (overrides: Record<string, unknown> = {}, clientId = signer.client_id) => requestClaims(clientId, harness.issuer, harness.clock.now(), params(), overrides);
/** The harness clock, in seconds. */
export const now = () => epoch(harness.clock.now());

/** `POST /bc-authorize` with `form`, as `client` (the signer by default) with client_secret_basic. */
export const bcAuthorize = (form: Record<string, string>, client: { client_id: string; client_secret: string } = signer) => harness.call('POST', '/bc-authorize', { headers: { 'content-type': FORM, authorization: basic(client.client_id, client.client_secret) }, body: formBody(form) });
/** The customer's inbox, and a request as the operator sees it. */
export const inbox = async () => (await harness.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie, origin: harness.issuer } })).body.requests as unknown[];
export const stored = async (authReqId: string) => (await harness.admin('GET', `/requests/${authReqId}?tenant=default`)).body.request;
