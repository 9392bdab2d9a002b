import * as oidc from 'openid-client';
import { afterEach, describe, expect, it } from 'vitest';
import { assertionClaims, formBody, JWT_BEARER, sign } from './support/client-jwt.ts';
import { createHarness, freePort, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { type Auth, basicAuth, basicClient, bcAuthorize, expectInvalidClient, FORM, harness, jwtAuth, jwtClient, postAuth, postClient, stateOf, useClientAuthWorld, wholeFlow } from './support/client-auth.ts';
import { esKey, psKey, useClientKeys } from './support/client-keys.ts';

/**
 * Client authentication that must succeed: every registered method (client_secret_basic,
 * client_secret_post, private_key_jwt signed ES256 or PS256) through the whole flow, the audiences
 * an assertion may name, and assertions openid-client signs itself. The refusals are in
 * `client-auth-refusals.test.ts`; the set-up is `support/client-auth.ts`.
 */

useClientKeys();

describe.each(['memory', 'redis'] as const)('client authentication (%s store)', (storeKind) => {
  useClientAuthWorld(storeKind);

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
