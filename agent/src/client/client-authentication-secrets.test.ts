import { CountersignError } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import type { ClientAuthentication } from './client-authentication.ts';
import { CLIENT_ID, details, ISSUER, OWN_MEMBERS, recorder, SECRET, wholeFlow } from './client-authentication.test-support.ts';
import { clientSecretBasic } from './client-secret-basic.ts';
import { createAgentClient } from './create-agent-client.ts';
import type { Fetch } from './types.ts';

// A client secret, in the Basic header or in the body, on every call; and the options and errors that must not leak it.

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
