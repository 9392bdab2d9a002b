import { describe, expect, it } from 'vitest';
import { sign, signHs256WithPublicKey, signText, unsigned } from './support/client-jwt.ts';
import { esKey, psKey, strangerKey, useClientKeys } from './support/client-keys.ts';
import { payment } from './support/payment.ts';
import { bcAuthorize, claims, customer, harness, inbox, now, optional, signer, useSignedRequestWorld } from './support/signed-request.ts';

/**
 * Signed authentication requests (CIBA Core §7.1.1) that must be refused with nothing stored or
 * pushed: wrong algorithms, keys, audiences, issuers and lifetimes, missing claims, parameters
 * outside the JWT, non-canonical JSON, replays. What must be accepted is in
 * `signed-request-accepts.test.ts`; the set-up is `support/signed-request.ts`.
 */

useClientKeys();

describe.each(['memory', 'redis'] as const)('signed authentication requests (%s store)', (storeKind) => {
  useSignedRequestWorld(storeKind);

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
