import { CIBA_GRANT_TYPE, CountersignError } from '@countersign/shared';
import { decodeProtectedHeader, exportJWK, generateKeyPair, jwtVerify, type CryptoKey, type JWK } from 'jose';
import { describe, expect, it } from 'vitest';
import { JWT_BEARER_ASSERTION_TYPE } from './client-assertion.ts';
import type { ClientAuthentication } from './client-authentication.ts';
import { clientSecretBasic } from './client-secret-basic.ts';
import { createAgentClient } from './create-agent-client.ts';
import type { Fetch } from './types.ts';

const ISSUER = 'https://cs.example/base';
const CLIENT_ID = 'agent:1';
const SECRET = 'sëcret+/=:%';
const NOW_MS = 1_700_000_000_500;
const details = [{ type: 'payment' as const, transaction_id: 'txn_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];

/** What the server answers on each path, so the client's parsing succeeds. */
function answerFor(path: string): unknown {
  if (path.endsWith('/bc-authorize')) return { auth_req_id: 'req_1', expires_in: 300, interval: 5 };
  if (path.endsWith('/token')) return { access_token: 'at_1', token_type: 'Bearer', expires_in: 600, id_token: 'idt', authorization_details: details };
  if (path.endsWith('/redeem')) return { status: 'redeemed', redemption_id: 'rdm_1', idempotency_key: 'txn_1042', authorization_details: details, redeemed_at: '2025-01-01T00:00:00.000Z' };
  if (path.endsWith('/outcome')) return { status: 'succeeded' };
  return { auth_req_id: 'req_1', state: 'redeemed', expires_at: '2025-01-01T00:00:00.000Z', outcome: { status: 'succeeded' } };
}

interface Sent {
  method: string;
  path: string;
  headers: Headers;
  /** The form or JSON body as an object; null without a body. */
  body: Record<string, unknown> | null;
}

/** A fetch double that records every call and answers it as the server would. */
function recorder() {
  const sent: Sent[] = [];
  const fetch: Fetch = async (url, init) => {
    const headers = new Headers(init.headers);
    const path = new URL(url).pathname;
    const text = init.body as string | undefined;
    const body = text === undefined ? null : headers.get('content-type') === 'application/json' ? (JSON.parse(text) as Record<string, unknown>) : Object.fromEntries(new URLSearchParams(text));
    sent.push({ method: init.method ?? 'GET', path, headers, body });
    expect(init.redirect).toBe('error');
    return Response.json(answerFor(path));
  };
  return { sent, fetch };
}

/** Every endpoint the client calls, once, in the order of a whole flow. */
async function wholeFlow(auth: ClientAuthentication, ids = ['jti-1', 'jti-2', 'jti-3', 'jti-4', 'jti-5']) {
  const { sent, fetch } = recorder();
  const client = createAgentClient({ issuer: `${ISSUER}/`, clientId: CLIENT_ID, auth, fetch, now: () => NOW_MS, newId: () => ids.shift() ?? 'jti-more' });
  await client.requestApproval({ login_hint: 'alice', authorization_details: details });
  await client.pollToken('req_1');
  await client.redeem('at_1', details);
  await client.reportOutcome('rdm_1', { status: 'succeeded', reference: 're_1' });
  await client.getRequest('req_1');
  return { client, sent };
}

/** The members each call carries besides client authentication. */
const OWN_MEMBERS = [
  { scope: 'openid', login_hint: 'alice', authorization_details: JSON.stringify(details) },
  { grant_type: CIBA_GRANT_TYPE, auth_req_id: 'req_1' },
  { token: 'at_1', authorization_details: details },
  { status: 'succeeded', reference: 're_1' },
];

function withoutAuthMembers(body: Record<string, unknown> | null) {
  const { client_id, client_secret, client_assertion, client_assertion_type, ...rest } = body ?? {};
  return rest;
}

describe('client_secret_basic', () => {
  it('sends the Basic header on every call, no credentials in any body, and reads a request with GET', async () => {
    const { client, sent } = await wholeFlow({ method: 'client_secret_basic', clientSecret: SECRET });
    expect(client.authMethod).toBe('client_secret_basic');
    const basic = `Basic ${btoa('agent%3A1:s%C3%ABcret%2B%2F%3D%3A%25')}`;
    expect(sent.map((call) => [call.method, call.path, call.headers.get('authorization')])).toEqual([
      ['POST', '/base/bc-authorize', basic],
      ['POST', '/base/token', basic],
      ['POST', '/base/redeem', basic],
      ['POST', '/base/redemptions/rdm_1/outcome', basic],
      ['GET', '/base/requests/req_1', basic],
    ]);
    expect(sent.slice(0, 4).map((call) => call.body)).toEqual(OWN_MEMBERS);
    expect(sent[4]?.body).toBeNull();
  });

  it('is what clientSecret alone means', async () => {
    const { sent, fetch } = recorder();
    const client = createAgentClient({ issuer: ISSUER, clientId: CLIENT_ID, clientSecret: SECRET, fetch });
    await client.pollToken('req_1');
    expect(client.authMethod).toBe('client_secret_basic');
    expect(sent[0]?.headers.get('authorization')).toMatch(/^Basic /);
  });
});

describe('client_secret_post', () => {
  it('puts client_id and client_secret in every form and JSON body, never a header, and reads a request with POST', async () => {
    const { client, sent } = await wholeFlow({ method: 'client_secret_post', clientSecret: SECRET });
    expect(client.authMethod).toBe('client_secret_post');
    const credentials = { client_id: CLIENT_ID, client_secret: SECRET };
    expect(sent.map((call) => [call.method, call.path, call.headers.get('authorization'), call.headers.get('content-type')])).toEqual([
      ['POST', '/base/bc-authorize', null, 'application/x-www-form-urlencoded'],
      ['POST', '/base/token', null, 'application/x-www-form-urlencoded'],
      ['POST', '/base/redeem', null, 'application/json'],
      ['POST', '/base/redemptions/rdm_1/outcome', null, 'application/json'],
      ['POST', '/base/requests/req_1', null, 'application/x-www-form-urlencoded'],
    ]);
    expect(sent.map((call) => call.body)).toEqual([...OWN_MEMBERS.map((members) => ({ ...members, ...credentials })), credentials]);
  });
});

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

describe('options and secrets', () => {
  it.each<[string, Parameters<typeof createAgentClient>[0], RegExp]>([
    ['both auth and clientSecret', { issuer: ISSUER, clientId: 'c', clientSecret: SECRET, auth: { method: 'client_secret_post', clientSecret: SECRET } } as never, /not both/],
    ['neither', { issuer: ISSUER, clientId: 'c' } as never, /give auth/],
    ['an empty secret', { issuer: ISSUER, clientId: 'c', auth: { method: 'client_secret_post', clientSecret: '' } }, /non-empty/],
    ['an unknown method', { issuer: ISSUER, clientId: 'c', auth: { method: 'tls_client_auth', clientSecret: SECRET } as never }, /auth\.method must be/],
  ])('refuses %s with a TypeError that holds no secret', (_, options, message) => {
    expect(() => createAgentClient(options)).toThrow(message);
    try {
      createAgentClient(options);
    } catch (error) {
      expect(String(error)).not.toContain(SECRET);
    }
  });

  it.each<ClientAuthentication>([
    { method: 'client_secret_basic', clientSecret: SECRET },
    { method: 'client_secret_post', clientSecret: SECRET },
  ])('keeps the $method secret it sent out of an invalid_client error', async (auth) => {
    let sent = '';
    const fetch: Fetch = async (_url, init) => {
      sent = `${new Headers(init.headers).get('authorization') ?? ''} ${String(init.body)}`;
      return Response.json({ error: 'invalid_client', error_description: 'Client authentication failed.' }, { status: 401 });
    };
    const client = createAgentClient({ issuer: ISSUER, clientId: CLIENT_ID, auth, fetch });
    const error = await client.redeem('at_secret', details).catch((caught: unknown) => caught);
    // The secret did travel (so the check below means something), in the header or the body.
    expect(sent).toContain(auth.method === 'client_secret_basic' ? clientSecretBasic(CLIENT_ID, SECRET) : JSON.stringify(SECRET));
    expect(error).toBeInstanceOf(CountersignError);
    expect(error).toMatchObject({ code: 'invalid_client', status: 401 });
    const shown = JSON.stringify({ error, message: (error as Error).message, body: (error as CountersignError).body });
    for (const secret of [SECRET, 'at_secret']) expect(shown).not.toContain(secret);
  });
});
