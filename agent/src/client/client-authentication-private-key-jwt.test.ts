import { decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { JWT_BEARER_ASSERTION_TYPE } from './client-assertion.ts';
import type { ClientAuthentication } from './client-authentication.ts';
import { CLIENT_ID, ISSUER, NOW_MS, OWN_MEMBERS, type Sent, wholeFlow, withoutAuthMembers } from './client-authentication.test-support.ts';
import { createAgentClient } from './create-agent-client.ts';

// private_key_jwt: a fresh signed assertion on every call, from an ES256 or RSA-PSS key.

describe('private_key_jwt', () => {
  async function es256() {
    const { privateKey, publicKey } = await generateKeyPair('ES256', { extractable: true });
    return { privateKey, publicKey, privateJwk: { ...(await exportJWK(privateKey)), kid: 'key-1' } as JWK };
  }

  /** Verifies one call's assertion as the server does, with the public key, and answers its header and claims. */
  async function assertionOf(call: Sent | undefined, publicKey: CryptoKey) {
    const body = call?.body ?? {};
    expect(body.client_assertion_type).toBe(JWT_BEARER_ASSERTION_TYPE);
    expect(body.client_id).toBe(CLIENT_ID);
    const jwt = body.client_assertion as string;
    const { payload } = await jwtVerify(jwt, publicKey, { currentDate: new Date(NOW_MS), algorithms: ['ES256', 'PS256'] });
    return { header: decodeProtectedHeader(jwt), payload };
  }

  it('signs a fresh assertion for every call: iss = sub = client_id, aud = issuer, a minute of life, a new jti', async () => {
    const key = await es256();
    const { client, sent } = await wholeFlow({ method: 'private_key_jwt', privateKey: key.privateKey, kid: 'key-1' });
    expect(client.authMethod).toBe('private_key_jwt');
    expect(sent.map((call) => [call.method, call.path, call.headers.get('authorization')])).toEqual([
      ['POST', '/base/bc-authorize', null],
      ['POST', '/base/token', null],
      ['POST', '/base/redeem', null],
      ['POST', '/base/redemptions/rdm_1/outcome', null],
      ['POST', '/base/requests/req_1', null],
    ]);
    expect(sent.slice(0, 4).map((call) => withoutAuthMembers(call.body))).toEqual(OWN_MEMBERS);
    // The request view's form carries nothing but the client authentication.
    expect(Object.keys(sent[4]?.body ?? {}).sort()).toEqual(['client_assertion', 'client_assertion_type', 'client_id']);
    const assertions = await Promise.all(sent.map((call) => assertionOf(call, key.publicKey)));
    const iat = Math.floor(NOW_MS / 1000);
    expect(assertions.map(({ header }) => header)).toEqual(Array(5).fill({ alg: 'ES256', kid: 'key-1' }));
    expect(assertions.map(({ payload }) => payload)).toEqual(['jti-1', 'jti-2', 'jti-3', 'jti-4', 'jti-5'].map((jti) => ({ iss: CLIENT_ID, sub: CLIENT_ID, aud: ISSUER, iat, exp: iat + 60, jti })));
  });

  it('takes a private JWK, with its kid and ES256 from the key type', async () => {
    const key = await es256();
    const { sent } = await wholeFlow({ method: 'private_key_jwt', privateKey: key.privateJwk });
    const { header } = await assertionOf(sent[0], key.publicKey);
    expect(header).toEqual({ alg: 'ES256', kid: 'key-1' });
  });

  it('signs PS256 with an RSA-PSS key, and leaves kid out when none is known', async () => {
    const { privateKey, publicKey } = await generateKeyPair('PS256');
    const { sent } = await wholeFlow({ method: 'private_key_jwt', privateKey });
    const { header, payload } = await assertionOf(sent[1], publicKey);
    expect(header).toEqual({ alg: 'PS256' });
    expect(payload.jti).toBe('jti-2');
  });

  it.each<[string, () => Promise<Extract<ClientAuthentication, { method: 'private_key_jwt' }>>, RegExp]>([
    ['a public JWK', async () => ({ method: 'private_key_jwt', privateKey: await exportJWK((await es256()).publicKey) }), /private JWK \(with "d"\)/],
    ['a public CryptoKey', async () => ({ method: 'private_key_jwt', privateKey: (await es256()).publicKey }), /private CryptoKey/],
    ['RS256', async () => ({ method: 'private_key_jwt', privateKey: (await generateKeyPair('RS256')).privateKey }), /ES256 \(EC P-256\) or PS256/],
    ['an EC key told to sign PS256', async () => ({ method: 'private_key_jwt', privateKey: (await es256()).privateJwk, alg: 'PS256' }), /does not fit alg PS256/],
    ['a P-384 key', async () => ({ method: 'private_key_jwt', privateKey: (await generateKeyPair('ES384')).privateKey }), /ES256 \(EC P-256\) or PS256/],
  ])('refuses %s when the client is created, without a word of the key', async (_, auth, message) => {
    const resolved = await auth();
    const error = (() => {
      try {
        createAgentClient({ issuer: ISSUER, clientId: CLIENT_ID, auth: resolved });
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toBeInstanceOf(TypeError);
    expect(error?.message).toMatch(message);
    const jwk: JWK = 'kty' in resolved.privateKey ? resolved.privateKey : {};
    for (const member of [jwk.d, jwk.x, jwk.n].filter(Boolean)) expect(error?.message).not.toContain(member);
  });
});
