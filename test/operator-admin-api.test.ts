import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHarness, type Harness } from './support/harness.ts';

/**
 * The operator tools' admin routes on bad input: 4xx with an OAuth-style body, never 5xx; a
 * client of another tenant out of reach; no secret where there must be none.
 */
describe('operator admin API refusals', () => {
  let harness: Harness;
  beforeAll(async () => {
    harness = await createHarness();
  });
  afterAll(() => harness?.close());

  it.each([
    ['GET', '/users?limit=0', 400, 'invalid_request'],
    ['GET', '/users?limit=201', 400, 'invalid_request'],
    ['GET', `/users?q=${'x'.repeat(129)}`, 400, 'invalid_request'],
    ['GET', '/clients?cursor=%7B%7D', 400, 'invalid_request'],
    ['GET', '/clients?tenant=Bad{tenant}', 400, 'invalid_request'],
    ['GET', '/requests?state=pending&cursor=eyJhZnRlciI6IngifQ', 400, 'invalid_request'],
    ['POST', '/clients/no_such_client/disable', 404, 'not_found'],
    ['POST', '/clients/..%2F..%2Fx/secret', 404, 'not_found'],
    ['DELETE', '/clients/no_such_client', 404, 'not_found'],
    ['GET', '/users/nobody/devices', 404, 'not_found'],
    ['DELETE', '/users/nobody/devices/dev_abcdef', 404, 'not_found'],
    ['GET', '/users/nobody/export', 404, 'not_found'],
  ])('%s %s → %i %s', async (method, path, status, error) => {
    const answer = await harness.admin(method, path);
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ error, error_description: expect.any(String) });
  });

  it('refuses a new secret for a private_key_jwt client, and keeps a client of another tenant out of reach', async () => {
    const created = await harness.admin('POST', '/clients', {
      name: 'Keyed',
      tenant: 'acme',
      token_endpoint_auth_method: 'private_key_jwt',
      jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', use: 'sig', alg: 'ES256', kid: 'k1' }] },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.client_id as string;
    expect(await harness.admin('POST', `/clients/${id}/secret?tenant=acme`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await harness.admin('POST', `/clients/${id}/disable`)).status).toBe(404);
    expect((await harness.admin('GET', '/clients?tenant=acme')).body.clients.map((client: { client_id: string }) => client.client_id)).toEqual([id]);
    expect((await harness.admin('GET', '/clients')).body.clients.map((client: { client_id: string }) => client.client_id)).not.toContain(id);
  });

  it("gives the console's own client no secret: its test requests stay impossible to execute", async () => {
    await harness.enrollUser('console_target');
    const asked = await harness.admin('POST', '/test-requests', { login_hint: 'console_target', sample: 'deletion' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    expect(await harness.admin('POST', `/clients/${asked.body.client_id}/secret`)).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: expect.stringContaining('console') } });
  });
});
