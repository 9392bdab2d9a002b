import { createAgentClient } from '@countersign/agent';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Harness } from './support/harness.ts';
import { cursorIn, rows, startOperatorServer, type OperatorServer } from './support/operator-server.ts';
import { payment } from './support/payment.ts';

/**
 * The operator's client tools (docs/operator-tools.md) through the CLI against a server listening on a
 * socket: list and search, disable and enable (the client's own calls refused meanwhile), a new
 * secret, deletion, each audited; and pending requests a page at a time.
 */
describe('operator tools for clients: the CLI against a running server', { timeout: 90_000 }, () => {
  let server: OperatorServer;
  let harness: Harness;
  let cli: OperatorServer['cli'];
  let auditTypes: OperatorServer['audit'];

  beforeAll(async () => {
    server = await startOperatorServer();
    ({ harness, cli, audit: auditTypes } = server);
  });
  afterAll(() => server?.harness.close());

  it('disables a client (its calls are refused invalid_client), enables it again, rotates its secret and deletes it', async () => {
    const credentials = await harness.createClient('Ops refund agent');
    const bob = await harness.enrollUser('ops_bob');
    const agentWith = (secret: string) => createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: secret, fetch: harness.fetch });
    const asked = await agentWith(credentials.client_secret).requestApproval({ login_hint: bob.sub, authorization_details: payment({ transaction_id: 'txn_ops_1' }) });

    const listed = await cli(['clients', 'list', '--q', 'ops refund']);
    expect(rows(listed.stdout)).toEqual([[credentials.client_id, 'Ops refund agent', 'poll', 'active', expect.stringMatching(/^\d{4}-/)]]);

    const disabled = await cli(['client', 'disable', credentials.client_id]);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(Object.fromEntries(rows(disabled.stdout))).toMatchObject({ client_id: credentials.client_id, status: 'disabled', disabled_at: expect.stringMatching(/Z$/) });
    const basic = (secret: string) => `Basic ${Buffer.from(`${credentials.client_id}:${secret}`).toString('base64')}`;
    // Each poll a while after the one before, so a working secret answers authorization_pending, not slow_down.
    const token = (secret: string) => (harness.clock.advance(10), harness.call('POST', '/token', { body: `grant_type=urn%3Aopenid%3Aparams%3Agrant-type%3Aciba&auth_req_id=${asked.auth_req_id}`, headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(secret) } }));
    expect(await token(credentials.client_secret)).toMatchObject({ status: 401, body: { error: 'invalid_client' } });
    await expect(agentWith(credentials.client_secret).requestApproval({ login_hint: bob.sub, authorization_details: payment({ transaction_id: 'txn_ops_2' }) })).rejects.toMatchObject({ code: 'invalid_client' });
    // Its pending request stays pending (the decision is documented): enabling is a true undo.
    expect(rows((await cli(['requests', 'pending', '--q', credentials.client_id])).stdout).map((row) => row[0])).toEqual([asked.auth_req_id]);
    expect(rows((await cli(['clients', 'list', '--q', 'ops refund'])).stdout)[0]![3]).toBe('disabled');

    expect((await cli(['client', 'enable', credentials.client_id])).code).toBe(0);
    expect((await token(credentials.client_secret)).body.error).toBe('authorization_pending');

    const rotated = await cli(['client', 'rotate-secret', credentials.client_id]);
    expect(rotated.code, rotated.stderr).toBe(0);
    const newSecret = Object.fromEntries(rows(rotated.stdout)).client_secret!;
    expect(newSecret).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(rotated.stderr).toContain('shown only this once');
    expect((await token(credentials.client_secret)).body.error).toBe('invalid_client');
    expect((await token(newSecret)).body.error).toBe('authorization_pending');

    const deleted = await cli(['client', 'delete', credentials.client_id]);
    expect(deleted.code, deleted.stderr).toBe(0);
    expect((await token(newSecret)).body.error).toBe('invalid_client');
    expect((await cli(['clients', 'list', '--q', 'ops refund'])).stdout).toBe('');
    expect((await cli(['client', 'disable', credentials.client_id])).stderr).toContain('error: not_found');

    const events = (await auditTypes()).filter((event) => event.client_id === credentials.client_id && event.channel === 'admin').map((event) => event.type);
    expect(events).toEqual(['client_disabled', 'client_enabled', 'client_secret_rotated', 'client_deleted']);
  });

  it('pages pending requests with a cursor', async () => {
    await harness.enrollUser('ops_erin');
    const credentials = await harness.createClient('Paging agent');
    const agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    const ids: string[] = [];
    for (const expiry of [100, 200, 300]) ids.push((await agent.requestApproval({ login_hint: 'ops_erin', authorization_details: payment({ transaction_id: `txn_page_${expiry}` }), requested_expiry: expiry })).auth_req_id);
    const first = await cli(['requests', 'pending', '--q', 'ops_erin', '--limit', '2']);
    expect(rows(first.stdout).map((row) => row[0])).toEqual(ids.slice(0, 2));
    const second = await cli(['requests', 'pending', '--q', 'ops_erin', '--limit', '2', '--cursor', cursorIn(first.stderr)!]);
    expect(rows(second.stdout).map((row) => row[0])).toEqual(ids.slice(2));
    expect(cursorIn(second.stderr)).toBeUndefined();
  });
});
