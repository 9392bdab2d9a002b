import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { assertionClaims, basic, clientKey, epoch, formBody, JWT_BEARER, requestClaims, sign, signHs256WithPublicKey, signText, unsigned, type ClientKey } from './support/client-jwt.ts';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

const FORM = 'application/x-www-form-urlencoded';

let esKey: ClientKey;
let psKey: ClientKey;
let strangerKey: ClientKey;

beforeAll(async () => {
  [esKey, psKey, strangerKey] = await Promise.all([clientKey('ES256'), clientKey('PS256'), clientKey('ES256')]);
});

describe.each(['memory', 'redis'] as const)('signed authentication requests (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  /** client_secret_basic, keys ES256 and PS256, registered to sign ES256: a signed request is required. */
  let signer: { client_id: string; client_secret: string };
  /** client_secret_basic with keys but no registered algorithm: signing is optional. */
  let optional: { client_id: string; client_secret: string };
  /** FAPI-CIBA: private_key_jwt and requests signed PS256. */
  let fapi: string;

  async function register(body: Record<string, unknown>) {
    const { status, body: client } = await harness.admin('POST', '/clients', { name: 'Agent', ...body });
    expect(status, JSON.stringify(client)).toBe(201);
    return client as { client_id: string; client_secret: string };
  }

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    const jwks = { keys: [esKey.publicJwk, psKey.publicJwk] };
    signer = await register({ jwks, backchannel_authentication_request_signing_alg: 'ES256' });
    optional = await register({ jwks });
    fapi = (await register({ profile: 'fapi-ciba', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [psKey.publicJwk] }, backchannel_authentication_request_signing_alg: 'PS256' })).client_id;
  });
  afterEach(() => harness.close());

  /** The authentication request parameters, as claims. */
  const params = (overrides: Record<string, unknown> = {}) => ({
    scope: 'openid',
    login_hint: customer.sub,
    binding_message: 'Order 1042',
    authorization_details: payment(),
    requested_expiry: 120,
    ...overrides,
  });
  const claims = (overrides: Record<string, unknown> = {}, clientId = signer.client_id) => requestClaims(clientId, harness.issuer, harness.clock.now(), params(), overrides);
  const now = () => epoch(harness.clock.now());

  const bcAuthorize = (form: Record<string, string>, client: { client_id: string; client_secret: string } = signer) => harness.call('POST', '/bc-authorize', { headers: { 'content-type': FORM, authorization: basic(client.client_id, client.client_secret) }, body: formBody(form) });
  const inbox = async () => (await harness.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie, origin: harness.issuer } })).body.requests as unknown[];
  const stored = async (authReqId: string) => (await harness.admin('GET', `/requests/${authReqId}?tenant=default`)).body.request;

  it('accepts a request signed ES256 and takes every parameter from its claims', async () => {
    const answer = await bcAuthorize({ request: await sign(esKey, claims()) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.expires_in).toBe(120);
    const request = await stored(answer.body.auth_req_id);
    expect(request).toMatchObject({ client_id: signer.client_id, sub: customer.sub, binding_message: 'Order 1042', authorization_details: payment() });
    expect(await inbox()).toHaveLength(1);
  });

  it('accepts a FAPI-CIBA request signed PS256, with a private_key_jwt assertion beside it', async () => {
    const assertion = await sign(psKey, assertionClaims(fapi, harness.issuer, harness.clock.now()));
    const request = await sign(psKey, claims({}, fapi));
    const answer = await harness.call('POST', '/bc-authorize', {
      headers: { 'content-type': FORM },
      body: formBody({ client_id: fapi, client_assertion_type: JWT_BEARER, client_assertion: assertion, request }),
    });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect((await stored(answer.body.auth_req_id)).client_id).toBe(fapi);
  });

  it('accepts authorization_details and requested_expiry written as strings', async () => {
    const answer = await bcAuthorize({ request: await sign(esKey, claims({ authorization_details: JSON.stringify(payment()), requested_expiry: '90' })) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body.expires_in).toBe(90);
  });

  it('accepts a lifetime of exactly 60 minutes', async () => {
    const answer = await bcAuthorize({ request: await sign(esKey, claims({ nbf: now() - 5, exp: now() - 5 + 3600 })) });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  });

  it('lets a client without a registered algorithm send a plain request, or one signed ES256 or PS256', async () => {
    const plain = { scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()) };
    expect((await bcAuthorize(plain, optional)).status).toBe(200);
    for (const [key, transaction] of [
      [esKey, 'txn_es'],
      [psKey, 'txn_ps'],
    ] as const) {
      const request = await sign(key, claims({ authorization_details: payment({ transaction_id: transaction }) }, optional.client_id));
      const answer = await bcAuthorize({ request }, optional);
      expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    }
    expect(await inbox()).toHaveLength(3);
  });

  const refusals: [string, () => Promise<Record<string, string>>, string?][] = [
    ['a plain request from a client registered to sign', async () => ({ scope: 'openid', login_hint: customer.sub, authorization_details: JSON.stringify(payment()) })],
    ['alg none', async () => ({ request: unsigned(claims()) })],
    ['HS256 with the public key as the secret', async () => ({ request: await signHs256WithPublicKey(esKey, claims()) })],
    ['PS256 from a client registered for ES256, with its own registered key', async () => ({ request: await sign(psKey, claims()) })],
    ['a signature by a key the client did not register', async () => ({ request: await sign({ ...strangerKey, publicJwk: { ...strangerKey.publicJwk, kid: esKey.publicJwk.kid } }, claims()) })],
    ['an aud of another server', async () => ({ request: await sign(esKey, claims({ aud: 'https://other.example' })) })],
    ['an aud naming the token endpoint instead of the issuer', async () => ({ request: await sign(esKey, claims({ aud: `${harness.issuer}/token` })) })],
    ['an iss naming another client', async () => ({ request: await sign(esKey, claims({ iss: optional.client_id })) })],
    ['a lifetime over 60 minutes', async () => ({ request: await sign(esKey, claims({ nbf: now(), exp: now() + 3601 })) })],
    ['an nbf in the future', async () => ({ request: await sign(esKey, claims({ nbf: now() + 120, exp: now() + 400 })) })],
    ['an iat in the future', async () => ({ request: await sign(esKey, claims({ iat: now() + 120 })) })],
    ['an exp that has passed', async () => ({ request: await sign(esKey, claims({ iat: now() - 300, nbf: now() - 300, exp: now() - 30 })) })],
    ...(['exp', 'iat', 'nbf', 'jti', 'aud', 'iss'] as const).map((claim): [string, () => Promise<Record<string, string>>] => [`no ${claim}`, async () => ({ request: await sign(esKey, claims({ [claim]: undefined })) })]),
    ['a parameter outside the JWT', async () => ({ request: await sign(esKey, claims()), binding_message: 'Order 1042' })],
    ['login_hint both inside and outside the JWT', async () => ({ request: await sign(esKey, claims()), login_hint: customer.sub })],
    ['an unknown claim', async () => ({ request: await sign(esKey, claims({ amount_minor: 1 })) })],
    ['a client_secret inside the JWT', async () => ({ request: await sign(esKey, claims({ client_secret: signer.client_secret })) })],
    ['a client_id claim naming another client', async () => ({ request: await sign(esKey, claims({ client_id: optional.client_id })) })],
    ['a login_hint that is not a string', async () => ({ request: await sign(esKey, claims({ login_hint: 42 })) })],
    ['a requested_expiry with a fraction', async () => ({ request: await sign(esKey, claims({ requested_expiry: 1.5 })) })],
    ['a request that is not a JWT', async () => ({ request: 'not-a-jwt' })],
    ['an amount spelled 49000.0 in the signed JSON', async () => ({ request: await signText(esKey, JSON.stringify(claims()).replace('"amount_minor":49000', '"amount_minor":49000.0')) }), 'invalid_authorization_details'],
    ['an amount_minor named twice in the signed JSON (JSON.parse keeps the last, another parser the first)', async () => ({ request: await signText(esKey, JSON.stringify(claims()).replace('"amount_minor":49000', '"amount_minor":1,"amount_minor":49000')) }), 'invalid_authorization_details'],
    ['a login_hint claim named twice', async () => ({ request: await signText(esKey, JSON.stringify(claims()).replace('"login_hint":', '"login_hint":"customer_2","login_hint":')) })],
    ['no openid in the signed scope', async () => ({ request: await sign(esKey, claims({ scope: 'profile' })) }), 'invalid_scope'],
  ];

  it.each(refusals)('refuses %s, and stores and pushes nothing', async (_name, form, code = 'invalid_request') => {
    const answer = await bcAuthorize(await form());
    expect([answer.status, answer.body.error], JSON.stringify(answer.body)).toEqual([400, code]);
    expect(await inbox()).toEqual([]);
  });

  it('refuses a replayed request object and stores nothing more', async () => {
    const request = await sign(esKey, claims());
    const first = await bcAuthorize({ request });
    expect(first.status).toBe(200);
    const replay = await bcAuthorize({ request });
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_request']);
    expect(await inbox()).toHaveLength(1);
  });

  it('does not use up the jti of a request refused for its parameters', async () => {
    const jti = 'jti-of-a-refused-request';
    const refused = await bcAuthorize({ request: await sign(esKey, claims({ jti, binding_message: 'Order 1042 \u{1F4B8}' })) });
    expect(refused.body.error).toBe('invalid_binding_message');
    expect((await bcAuthorize({ request: await sign(esKey, claims({ jti })) })).status).toBe(200);
  });
});
