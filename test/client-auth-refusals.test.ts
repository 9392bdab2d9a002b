import { describe, expect, it } from 'vitest';
import { assertionClaims, epoch, JWT_BEARER, signHs256WithPublicKey, unsigned } from './support/client-jwt.ts';
import { approvedForJwtClient, assertionAuth, type Auth, basicAuth, basicClient, basicWithKeys, bcAuthorize, expectInvalidClient, harness, inbox, jwtAuth, jwtClient, otherJwtClient, postAuth, postClient, redeem, stateOf, token, useClientAuthWorld } from './support/client-auth.ts';
import { esKey, rsaForRs256, strangerKey, useClientKeys } from './support/client-keys.ts';

/**
 * Client authentication that must fail: bad assertions (keys, algorithms, audiences, lifetimes,
 * issuers, types) and methods the client did not register, at /bc-authorize, /token and /redeem,
 * each refused with 401 invalid_client and nothing stored or spent; mixed methods with 400
 * invalid_request; replayed assertions. What must succeed is in `client-auth-methods.test.ts`;
 * the set-up is `support/client-auth.ts`.
 */

useClientKeys();

describe.each(['memory', 'redis'] as const)('client authentication (%s store)', (storeKind) => {
  useClientAuthWorld(storeKind);

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
