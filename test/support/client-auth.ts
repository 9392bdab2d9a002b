import { CIBA_GRANT_TYPE } from '@countersign/shared';
import { afterEach, beforeEach, expect } from 'vitest';
import { assertionClaims, basic, formBody, JWT_BEARER, sign } from './client-jwt.ts';
import { esKey, psKey, strangerKey } from './client-keys.ts';
import { createHarness, type EnrolledUser, type Harness } from './harness.ts';
import { payment } from './payment.ts';

/**
 * The set-up of the client authentication tests (`test/client-auth-*.test.ts`): a harness with one
 * client of each method (their keys: `client-keys.ts`), and calls that carry credentials.
 *
 * The state is held in exported bindings, which ES modules keep live: a test that imports
 * `harness` or `jwtClient` reads the one its `beforeEach` set up.
 */

export const FORM = 'application/x-www-form-urlencoded';

/** Credentials as a call carries them: a header, body parameters, or both. */
export interface Auth {
  headers?: Record<string, string>;
  params?: Record<string, string>;
}

export let harness: Harness;
export let customer: EnrolledUser;
export let basicClient: { client_id: string; client_secret: string };
export let postClient: { client_id: string; client_secret: string };
export let basicWithKeys: { client_id: string; client_secret: string };
export let jwtClient: string;
export let otherJwtClient: string;

async function register(body: Record<string, unknown>) {
  const { status, body: client } = await harness.admin('POST', '/clients', { name: 'Agent', ...body });
  expect(status).toBe(201);
  return client as { client_id: string; client_secret: string };
}

/** A fresh harness on `storeKind` before each test of the calling `describe`, with a client of each method and a customer. */
export function useClientAuthWorld(storeKind: 'memory' | 'redis'): void {
  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    basicClient = await register({});
    postClient = await register({ token_endpoint_auth_method: 'client_secret_post' });
    basicWithKeys = await register({ jwks: { keys: [esKey.publicJwk] } });
    jwtClient = (await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [esKey.publicJwk, psKey.publicJwk] } })).client_id;
    otherJwtClient = (await register({ token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [strangerKey.publicJwk] } })).client_id;
  });
  afterEach(() => harness.close());
}

/** Credentials of each method, for `bcAuthorize`, `token` and `redeem`. */
export const basicAuth = (client: { client_id: string; client_secret: string }): Auth => ({ headers: { authorization: basic(client.client_id, client.client_secret) } });
export const postAuth = (client: { client_id: string; client_secret: string }): Auth => ({ params: { client_id: client.client_id, client_secret: client.client_secret } });
export const assertionAuth = (assertion: string, clientId?: string): Auth => ({
  params: { ...(clientId ? { client_id: clientId } : {}), client_assertion_type: JWT_BEARER, client_assertion: assertion },
});
export const jwtAuth = async (key = esKey, overrides: Record<string, unknown> = {}, clientId = jwtClient): Promise<Auth> => assertionAuth(await sign(key, assertionClaims(clientId, harness.issuer, harness.clock.now(), overrides)), clientId);

/** The calls of the flow, each with the credentials given. */
export const bcAuthorize = (auth: Auth, transactionId = 'txn_1042') =>
  harness.call('POST', '/bc-authorize', {
    headers: { 'content-type': FORM, ...auth.headers },
    body: formBody({ scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment({ transaction_id: transactionId })), ...auth.params }),
  });
export const token = (auth: Auth, authReqId: string) => harness.call('POST', '/token', { headers: { 'content-type': FORM, ...auth.headers }, body: formBody({ grant_type: CIBA_GRANT_TYPE, auth_req_id: authReqId, ...auth.params }) });
export const redeem = (auth: Auth, accessToken: string, transactionId = 'txn_1042') => harness.call('POST', '/redeem', { headers: auth.headers, body: { token: accessToken, authorization_details: payment({ transaction_id: transactionId }), ...auth.params } });
/** The customer's inbox, and the state of a request as the operator sees it. */
export const inbox = async () => (await harness.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie, origin: harness.issuer } })).body.requests as unknown[];
export const stateOf = async (authReqId: string) => (await harness.admin('GET', `/requests/${authReqId}?tenant=default`)).body.request.state as string;

/** Checks `answer` is the one refusal of every client authentication that fails. */
export function expectInvalidClient(answer: { status: number; body: any; headers: Headers }) {
  expect([answer.status, answer.body.error]).toEqual([401, 'invalid_client']);
  expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
  // One description for every failure: nothing tells a forger which check to fix.
  expect(answer.body.error_description).toBe('Client authentication failed.');
}

/** Runs the whole flow with fresh credentials from `auth` at every step. */
export async function wholeFlow(auth: () => Promise<Auth> | Auth) {
  const asked = await bcAuthorize(await auth());
  expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  expect((await harness.decide(customer, asked.body.auth_req_id, 'approve')).status).toBe(200);
  const issued = await token(await auth(), asked.body.auth_req_id);
  expect(issued.status, JSON.stringify(issued.body)).toBe(200);
  const redeemed = await redeem(await auth(), issued.body.access_token);
  expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
  expect(redeemed.body.status).toBe('redeemed');
  return { authReqId: asked.body.auth_req_id as string, redemptionId: redeemed.body.redemption_id as string };
}

/** An approved request of the private_key_jwt client and its access token. */
export async function approvedForJwtClient() {
  const asked = await bcAuthorize(await jwtAuth());
  await harness.decide(customer, asked.body.auth_req_id, 'approve');
  return asked.body.auth_req_id as string;
}
