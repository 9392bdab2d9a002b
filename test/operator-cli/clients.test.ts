import { describe, expect, it } from 'vitest';
import { cliSuite, harness } from './support.ts';

/** `client create`: credentials printed once (or as JSON) that work; a ping client needs its endpoint. */
// Each test starts one or more Node processes: generous limits, for a loaded CI machine.
describe('the operator CLI against a running server', { timeout: 90_000 }, () => {
  const { cli, fields } = cliSuite();

  it('creates a client and prints its id and secret once, and the secret works', async () => {
    const run = await cli(['client', 'create', '--name', 'Billing agent', '--tenant', 'default']);
    expect(run.code).toBe(0);
    const client = fields(run.stdout);
    expect(client).toMatchObject({ client_id: expect.stringMatching(/^cli_/), client_secret: expect.any(String), name: 'Billing agent', tenant: 'default', mode: 'poll' });
    expect(run.stderr).toContain('shown only this once');
    // The credentials authenticate: an unknown auth_req_id is invalid_grant, not invalid_client.
    const token = await harness.call('POST', '/token', {
      body: 'grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=unknown_request_id_0000',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` },
    });
    expect(token.body.error).toBe('invalid_grant');
  });

  it('prints the new client as JSON with --json', async () => {
    const run = await cli(['client', 'create', '--name', 'Ping agent', '--mode', 'ping', '--endpoint', 'http://localhost:9/notify', '--json']);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ client_id: expect.any(String), client_secret: expect.any(String), token_delivery_mode: 'ping', backchannel_client_notification_endpoint: 'http://localhost:9/notify' });
  });

  it('refuses a ping client without an endpoint before calling the server', async () => {
    const run = await cli(['client', 'create', '--name', 'Ping agent', '--mode', 'ping']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('needs --endpoint');
  });
});
