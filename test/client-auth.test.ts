import { CIBA_GRANT_TYPE } from '@countersign/shared';
import { exportJWK, importJWK, type CryptoKey } from 'jose';
import * as oidc from 'openid-client';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertionClaims, basic, clientKey, epoch, formBody, JWT_BEARER, sign, signHs256WithPublicKey, unsigned, type ClientKey } from './support/client-jwt.ts';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

const FORM = 'application/x-www-form-urlencoded';

/** Credentials as a call carries them: a header, body parameters, or both. */
interface Auth {
  headers?: Record<string, string>;
  params?: Record<string, string>;
}

let esKey: ClientKey;
let psKey: ClientKey;
let rsaForRs256: ClientKey;
let strangerKey: ClientKey;

beforeAll(async () => {
  [esKey, psKey, strangerKey] = await Promise.all([clientKey('ES256'), clientKey('PS256'), clientKey('ES256')]);
  // RS256 with the very RSA key the client registered for PS256: the key fits, the algorithm does not.
  rsaForRs256 = { ...psKey, alg: 'RS256', privateKey: (await importJWK(await exportJWK(psKey.privateKey), 'RS256')) as CryptoKey };
});

describe.each(['memory', 'redis'] as const)('client authentication (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let basicClient: { client_id: string; client_secret: string };
  let postClient: { client_id: string; client_secret: string };
  let basicWithKeys: { client_id: string; client_secret: string };
  let jwtClient: string;
  let otherJwtClient: string;

  async function register(body: Record<string, unknown>) {
    const { status, body: client } = await harness.admin('POST', '/clients', { name: 'Agent', ...body });
    expect(status).toBe(201);
    return client as { client_id: string; client_secret: string };
  }

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

  const basicAuth = (client: { client_id: string; client_secret: string }): Auth => ({ headers: { authorization: basic(client.client_id, client.client_secret) } });
  const postAuth = (client: { client_id: string; client_secret: string }): Auth => ({ params: { client_id: client.client_id, client_secret: client.client_secret } });
  const assertionAuth = (assertion: string, clientId?: string): Auth => ({
    params: { ...(clientId ? { client_id: clientId } : {}), client_assertion_type: JWT_BEARER, client_assertion: assertion },
  });
  const jwtAuth = async (key = esKey, overrides: Record<string, unknown> = {}, clientId = jwtClient): Promise<Auth> => assertionAuth(await sign(key, assertionClaims(clientId, harness.issuer, harness.clock.now(), overrides)), clientId);

  const bcAuthorize = (auth: Auth, transactionId = 'txn_1042') =>
    harness.call('POST', '/bc-authorize', {
      headers: { 'content-type': FORM, ...auth.headers },
      body: formBody({ scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment({ transaction_id: transactionId })), ...auth.params }),
    });
  const token = (auth: Auth, authReqId: string) => harness.call('POST', '/token', { headers: { 'content-type': FORM, ...auth.headers }, body: formBody({ grant_type: CIBA_GRANT_TYPE, auth_req_id: authReqId, ...auth.params }) });
  const redeem = (auth: Auth, accessToken: string, transactionId = 'txn_1042') => harness.call('POST', '/redeem', { headers: auth.headers, body: { token: accessToken, authorization_details: payment({ transaction_id: transactionId }), ...auth.params } });
  const inbox = async () => (await harness.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie, origin: harness.issuer } })).body.requests as unknown[];
  const stateOf = async (authReqId: string) => (await harness.admin('GET', `/requests/${authReqId}?tenant=default`)).body.request.state as string;

  function expectInvalidClient(answer: { status: number; body: any; headers: Headers }) {
    expect([answer.status, answer.body.error]).toEqual([401, 'invalid_client']);
    expect(answer.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
    // One description for every failure: nothing tells a forger which check to fix.
    expect(answer.body.error_description).toBe('Client authentication failed.');
  }

  /** Runs the whole flow with fresh credentials from `auth` at every step. */
  async function wholeFlow(auth: () => Promise<Auth> | Auth) {
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
  async function approvedForJwtClient() {
    const asked = await bcAuthorize(await jwtAuth());
    await harness.decide(customer, asked.body.auth_req_id, 'approve');
    return asked.body.auth_req_id as string;
  }

  describe('accepts every registered method at /bc-authorize, /token and /redeem', () => {
    it('client_secret_basic', async () => {
      await wholeFlow(() => basicAuth(basicClient));
    });

    it('client_secret_post, with client_id and client_secret in the form and in the JSON body', async () => {
      const { authReqId } = await wholeFlow(() => postAuth(postClient));
      // GET /requests/{id} has no body, so the same secret goes in the Basic header there, and only there.
      const view = await harness.call('GET', `/requests/${authReqId}`, basicAuth(postClient));
      expect([view.status, view.body.state]).toEqual([200, 'redeemed']);
      expectInvalidClient(await harness.call('GET', `/requests/${authReqId}`, basicAuth({ ...postClient, client_secret: `${postClient.client_secret}x` })));
      expectInvalidClient(await bcAuthorize(basicAuth(postClient)));
    });

    it('private_key_jwt signed ES256, and the outcome report takes an assertion too', async () => {
      const { authReqId, redemptionId } = await wholeFlow(() => jwtAuth(esKey));
      const reported = await harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body: { status: 'succeeded', reference: 're_1', ...(await jwtAuth()).params } });
      expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      expect(reported.body.outcome).toEqual({ status: 'succeeded', reference: 're_1' });
      expect(await stateOf(authReqId)).toBe('redeemed');
    });

    it('lets every method read the client view with POST /requests/{auth_req_id}; another client finds nothing', async () => {
      const viewOf = (authReqId: string, auth: Auth) => harness.call('POST', `/requests/${authReqId}`, { headers: { 'content-type': FORM, ...auth.headers }, body: formBody({ ...auth.params }) });
      const { authReqId: ofJwt } = await wholeFlow(() => jwtAuth(esKey));
      const { authReqId: ofPost } = await wholeFlow(() => postAuth(postClient));
      const { authReqId: ofBasic } = await wholeFlow(() => basicAuth(basicClient));
      for (const [authReqId, auth] of [
        [ofJwt, await jwtAuth()],
        [ofPost, postAuth(postClient)],
        [ofBasic, basicAuth(basicClient)],
      ] as const) {
        const view = await viewOf(authReqId, auth);
        expect([view.status, view.body.auth_req_id, view.body.state, view.body.awaiting]).toEqual([200, authReqId, 'redeemed', []]);
      }
      // A client_secret_basic client has nothing to put in the form: a POST without a body will do.
      const bodyless = await harness.call('POST', `/requests/${ofBasic}`, basicAuth(basicClient));
      expect([bodyless.status, bodyless.body.state]).toEqual([200, 'redeemed']);
      // Another client's request answers as if there were none; so does a method the client did not register.
      expect((await viewOf(ofJwt, postAuth(postClient))).body.error).toBe('not_found');
      expectInvalidClient(await viewOf(ofPost, basicAuth(postClient)));
      // A replayed assertion is refused there as everywhere: its jti is single-use.
      const once = await jwtAuth();
      expect((await viewOf(ofJwt, once)).status).toBe(200);
      expectInvalidClient(await viewOf(ofJwt, once));
      // Nothing but client authentication in the form.
      const extra = await viewOf(ofBasic, { ...basicAuth(basicClient), params: { state: 'approved' } });
      expect([extra.status, extra.body.error]).toEqual([400, 'invalid_request']);
    });

    it('private_key_jwt signed PS256, without a client_id beside the assertion', async () => {
      await wholeFlow(async () => ({ params: { client_assertion_type: JWT_BEARER, client_assertion: await sign(psKey, assertionClaims(jwtClient, harness.issuer, harness.clock.now())) } }));
    });
  });

  it.each([
    ['the issuer', (issuer: string) => issuer],
    ['the token endpoint (CIBA Core §7.1)', (issuer: string) => `${issuer}/token`],
    ['the endpoint being called', (issuer: string) => `${issuer}/bc-authorize`],
    ['an array holding the issuer', (issuer: string) => ['https://other.example', issuer]],
  ])('accepts an assertion whose aud is %s', async (_name, audience) => {
    const asked = await bcAuthorize(await jwtAuth(esKey, { aud: audience(harness.issuer) }));
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
  });

  /** Assertions that must be refused; `path` is the endpoint they are sent to. */
  const badAssertions: [string, (path: string) => Promise<Auth>][] = [
    ['signed with a key the client did not register, under its kid', async () => jwtAuth({ ...strangerKey, publicJwk: { ...strangerKey.publicJwk, kid: esKey.publicJwk.kid } })],
    ['HS256 with the public key as the secret', async () => assertionAuth(await signHs256WithPublicKey(esKey, assertionClaims(jwtClient, harness.issuer, harness.clock.now())), jwtClient)],
    ['alg none', async () => assertionAuth(unsigned(assertionClaims(jwtClient, harness.issuer, harness.clock.now())), jwtClient)],
    ['RS256 with the registered RSA key', async () => jwtAuth(rsaForRs256)],
    ['an aud of another server', async () => jwtAuth(esKey, { aud: 'https://other.example' })],
    ['an aud naming another endpoint', async (path) => jwtAuth(esKey, { aud: `${harness.issuer}${path === '/redeem' ? '/bc-authorize' : '/redeem'}` })],
    ['no exp', async () => jwtAuth(esKey, { exp: undefined })],
    ['an exp that has passed', async () => jwtAuth(esKey, { iat: epoch(harness.clock.now()) - 120, exp: epoch(harness.clock.now()) - 60 })],
    ['a life over 5 minutes', async () => jwtAuth(esKey, { exp: epoch(harness.clock.now()) + 301 })],
    ['a life over 5 minutes and no iat', async () => jwtAuth(esKey, { iat: undefined, exp: epoch(harness.clock.now()) + 400 })],
    ['an iat in the future', async () => jwtAuth(esKey, { iat: epoch(harness.clock.now()) + 120, exp: epoch(harness.clock.now()) + 180 })],
    ['an nbf in the future', async () => jwtAuth(esKey, { nbf: epoch(harness.clock.now()) + 120 })],
    ['no jti', async () => jwtAuth(esKey, { jti: undefined })],
    ['an iss that differs from sub', async () => jwtAuth(esKey, { iss: otherJwtClient })],
    ["another client's id as iss and sub", async () => jwtAuth(esKey, {}, otherJwtClient)],
    ['an unknown client', async () => jwtAuth(esKey, {}, 'cli_unknown_0123456789')],
    ['a client_id beside it naming another client', async () => ({ params: { ...(await jwtAuth()).params, client_id: otherJwtClient } })],
    ['a client_assertion_type other than jwt-bearer', async () => ({ params: { ...(await jwtAuth()).params, client_assertion_type: 'urn:ietf:params:oauth:client-assertion-type:saml2-bearer' } })],
    ['a client_assertion that is not a JWT', async () => assertionAuth('not-a-jwt', jwtClient)],
  ];

  const wrongMethods: [string, () => Promise<Auth>][] = [
    ['a private_key_jwt client presenting a secret', async () => basicAuth({ client_id: jwtClient, client_secret: basicClient.client_secret })],
    ['a client_secret_basic client using client_secret_post', async () => postAuth(basicClient)],
    ['a client_secret_post client using client_secret_basic', async () => basicAuth(postClient)],
    ['a client_secret_basic client with registered keys presenting a valid assertion', async () => jwtAuth(esKey, {}, basicWithKeys.client_id)],
  ];

  describe('at /bc-authorize, refuses with 401 invalid_client and stores nothing', () => {
    it.each(badAssertions)('an assertion with %s', async (_name, auth) => {
      expectInvalidClient(await bcAuthorize(await auth('/bc-authorize')));
      expect(await inbox()).toEqual([]);
    });

    it.each(wrongMethods)('%s', async (_name, auth) => {
      expectInvalidClient(await bcAuthorize(await auth()));
      expect(await inbox()).toEqual([]);
    });
  });

  it.each([
    ['client_secret_basic and private_key_jwt', async () => ({ headers: basicAuth(basicWithKeys).headers, params: (await jwtAuth(esKey, {}, basicWithKeys.client_id)).params })],
    ['client_secret_post and private_key_jwt', async () => ({ params: { ...(await jwtAuth()).params, client_secret: postClient.client_secret } })],
    ['a client_assertion without its type', async () => ({ params: { client_assertion: (await jwtAuth()).params!.client_assertion! } })],
    ['a client_assertion_type without an assertion', async () => ({ params: { client_assertion_type: JWT_BEARER } })],
  ])('refuses %s at once with 400 invalid_request and stores nothing', async (_name, auth) => {
    const answer = await bcAuthorize(await auth());
    expect([answer.status, answer.body.error]).toEqual([400, 'invalid_request']);
    expect(await inbox()).toEqual([]);
  });

  it('refuses a replayed assertion at every endpoint, and a jti used at one endpoint at the next', async () => {
    const first = await jwtAuth();
    expect((await bcAuthorize(first)).status).toBe(200);
    expectInvalidClient(await bcAuthorize(first, 'txn_replay'));
    expectInvalidClient(await token(first, 'anything'));
    expect(await inbox()).toHaveLength(1);

    const authReqId = await approvedForJwtClient();
    const tokenAuth = await jwtAuth();
    const issued = await token(tokenAuth, authReqId);
    expect(issued.status).toBe(200);
    expectInvalidClient(await token(tokenAuth, authReqId));

    const redeemAuth = await jwtAuth();
    expect((await redeem(redeemAuth, issued.body.access_token)).status).toBe(200);
    expectInvalidClient(await redeem(redeemAuth, issued.body.access_token));
  });

  it('does not use up the jti of a refused assertion', async () => {
    const jti = 'jti-of-a-refused-assertion';
    expectInvalidClient(await bcAuthorize(await jwtAuth(esKey, { jti, aud: 'https://other.example' })));
    expect((await bcAuthorize(await jwtAuth(esKey, { jti }))).status).toBe(200);
  });

  it('at /token, refuses every bad assertion and wrong method, and the request still answers its client', async () => {
    const authReqId = await approvedForJwtClient();
    for (const [name, auth] of [...badAssertions, ...wrongMethods]) {
      const answer = await token(await auth('/token'), authReqId);
      expect([answer.status, answer.body.error], name).toEqual([401, 'invalid_client']);
    }
    expect(await stateOf(authReqId)).toBe('approved');
    // Refused calls never reached the poll-rate check: the first real poll is not slowed down.
    expect((await token(await jwtAuth(), authReqId)).status).toBe(200);
  });

  it('at /redeem, refuses every bad assertion and wrong method, and the approval stays redeemable', async () => {
    const authReqId = await approvedForJwtClient();
    const accessToken = (await token(await jwtAuth(), authReqId)).body.access_token as string;
    for (const [name, auth] of [...badAssertions, ...wrongMethods]) {
      const answer = await redeem(await auth('/redeem'), accessToken);
      expect([answer.status, answer.body.error], name).toEqual([401, 'invalid_client']);
    }
    expect(await stateOf(authReqId)).toBe('approved');
    expect((await redeem(await jwtAuth(), accessToken)).status).toBe(200);
  });
});

describe('private_key_jwt from openid-client', () => {
  let harness: Harness;
  afterEach(() => harness.close());

  it('discovers, asks and polls with assertions openid-client signs itself (aud = issuer, 60 s, fresh jti)', async () => {
    const port = await freePort();
    const issuer = `http://localhost:${port}`;
    harness = await createHarness({ store: 'redis', publicUrl: issuer, env: { POLL_INTERVAL: '1' } });
    await harness.listen(port);
    const customer = await harness.enrollUser('alice');
    const { body: client } = await harness.admin('POST', '/clients', { name: 'Interop agent', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [esKey.publicJwk] } });

    const auth = oidc.PrivateKeyJwt({ key: esKey.privateKey, kid: esKey.publicJwk.kid! });
    const config = await oidc.discovery(new URL(issuer), client.client_id, undefined, auth, { execute: [oidc.allowInsecureRequests] });
    const started = await oidc.initiateBackchannelAuthentication(config, { scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()) });
    const approval = harness.decide(customer, started.auth_req_id, 'approve');
    const tokens = await oidc.pollBackchannelAuthenticationGrant(config, started);
    expect((await approval).status).toBe(200);
    expect(tokens.authorization_details).toEqual(payment());
  });
});
