import { keys } from '@countersign/server';
import { createAgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { storedEvent } from '../server/src/audit/index.ts';
import type { PushSender } from '../server/src/push/index.ts';
import { createHarness, freePort, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { runProcess, type Run } from './support/operator-process.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSX = `${ROOT}node_modules/.bin/tsx`;
const CLI = `${ROOT}server/src/operator/cli.ts`;

/**
 * The operator tools of issue 16, each through the CLI (`tsx server/src/operator/cli.ts`, stdout a
 * pipe, so tab-separated) against a server listening on a socket, and checked by what it changed.
 */
describe('operator tools: the CLI against a running server', { timeout: 90_000 }, () => {
  let harness: Harness;
  let url: string;
  const pushes: Array<{ endpoint: string; payload: { kind: string; auth_req_id: string; summary: string } }> = [];
  const sender: PushSender = {
    send: async (subscription, payload) => {
      pushes.push({ endpoint: subscription.endpoint, payload: JSON.parse(payload) });
      return { status: 'sent', statusCode: 201 };
    },
  };

  beforeAll(async () => {
    const port = await freePort();
    harness = await createHarness({ publicUrl: `http://localhost:${port}`, pushSender: sender });
    await harness.listen(port);
    url = `http://127.0.0.1:${port}`;
  });
  afterAll(() => harness?.close());

  function cli(args: string[], env: Record<string, string> = {}): Promise<Run> {
    return runProcess(TSX, [CLI, ...args], { cwd: ROOT, env: { COUNTERSIGN_URL: url, ADMIN_TOKEN: harness.adminToken, ...env } });
  }
  const rows = (stdout: string) => stdout.trimEnd().split('\n').filter(Boolean).map((line) => line.split('\t'));
  const cursorIn = (stderr: string) => /--cursor (\S+)/.exec(stderr)?.[1];
  const auditTypes = async () => (await harness.store.streamRange(keys.auditChain('default'))).flatMap((entry) => storedEvent(entry, 'default') ?? []);

  it('lists users a page at a time, by sub, and searches them by sub or name', async () => {
    for (const [sub, name] of [['ops_alice', 'Alice Martin'], ['ops_amy', 'Amy Chen'], ['ops_zed', 'Zed Alinsky']]) await harness.admin('POST', '/users', { sub, display_name: name });
    const first = await cli(['users', 'list', '--q', 'ops_', '--limit', '2']);
    expect(first.code, first.stderr).toBe(0);
    expect(rows(first.stdout).map((row) => row.slice(0, 2))).toEqual([['ops_alice', 'Alice Martin'], ['ops_amy', 'Amy Chen']]);
    expect(rows(first.stdout)[0]![3]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const cursor = cursorIn(first.stderr);
    expect(cursor).toBeDefined();
    const second = await cli(['users', 'list', '--q', 'ops_', '--limit', '2', '--cursor', cursor!]);
    expect(rows(second.stdout).map((row) => row[0])).toEqual(['ops_zed']);
    expect(cursorIn(second.stderr)).toBeUndefined();
    // Case-insensitive, on the display name as well: "ALI" is Alice Martin and Zed Alinsky.
    const json = JSON.parse((await cli(['users', 'list', '--q', 'ALI', '--json'])).stdout);
    expect(json).toEqual({ users: [expect.objectContaining({ sub: 'ops_alice', roles: [] }), expect.objectContaining({ sub: 'ops_zed', display_name: 'Zed Alinsky' })], next_cursor: null });
    expect((await cli(['users', 'list', '--cursor', 'not-a-cursor'])).stderr).toContain('error: invalid_request');
  });

  it('sets roles, shows the user, and clears a block', async () => {
    const set = await cli(['user', 'roles', 'ops_amy', 'reviewer:finance', 'reviewer:legal']);
    expect(set.code, set.stderr).toBe(0);
    expect(rows(set.stdout)).toEqual([['sub', 'ops_amy'], ['roles', 'reviewer:finance reviewer:legal']]);
    expect((await harness.admin('GET', '/users/ops_amy')).body.user.roles).toEqual(['reviewer:finance', 'reviewer:legal']);
    expect((await cli(['user', 'roles', 'ops_amy'])).code).toBe(2);
    expect((await cli(['user', 'roles', 'ops_amy', '--none'])).code).toBe(0);
    expect((await harness.admin('GET', '/users/ops_amy')).body.user.roles).toEqual([]);

    await harness.store.hashSet(keys.clientBlocks('default', 'ops_amy'), { cli_blocked_0001: JSON.stringify({ client_id: 'cli_blocked_0001', auth_req_id: 'r'.repeat(22), blocked_at: 0 }) });
    expect(rows((await cli(['user', 'show', 'ops_amy'])).stdout)).toContainEqual(['blocked', 'cli_blocked_0001']);
    const unblock = await cli(['user', 'unblock', 'ops_amy', 'cli_blocked_0001']);
    expect(unblock.code, unblock.stderr).toBe(0);
    expect((await harness.admin('GET', '/users/ops_amy')).body.blocks).toEqual([]);
    expect((await cli(['user', 'unblock', 'ops_amy', 'cli_blocked_0001'])).stderr).toContain('error: not_found');
  });

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

  it('revokes a lost device: its passkey and push subscription are gone, and the other device is told', async () => {
    const lost = await harness.enrollUser('ops_carol');
    const kept = await harness.enrollUser('ops_carol');
    const subscribe = async (user: EnrolledUser, endpoint: string) => {
      const ecdh = createECDH('prime256v1');
      ecdh.generateKeys();
      const body = { endpoint, expirationTime: null, keys: { p256dh: ecdh.getPublicKey().toString('base64url'), auth: randomBytes(16).toString('base64url') } };
      expect((await harness.call('PUT', '/api/device/push-subscription', { body, headers: { cookie: user.cookie, origin: harness.issuer } })).status).toBe(204);
    };
    await subscribe(lost, 'https://push.example.net/send/lost-phone');
    await subscribe(kept, 'https://push.example.net/send/kept-phone');
    const mine = await harness.call('GET', '/api/device/devices', { headers: { cookie: lost.cookie, origin: harness.issuer } });
    const lostId = mine.body.devices.find((device: { this_device: boolean }) => device.this_device).device_id as string;

    const listed = await cli(['devices', 'list', 'ops_carol']);
    expect(listed.code, listed.stderr).toBe(0);
    expect(rows(listed.stdout).map((row) => [row[0], row[1], row[4]]).sort()).toEqual(mine.body.devices.map((device: { device_id: string }) => [device.device_id, 'Test phone', '1']).sort());

    const revoked = await cli(['device', 'revoke', 'ops_carol', lostId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(lostId);
    expect(revoked.stderr).toContain('1 of their other push subscriptions were told');
    expect(pushes).toEqual([{ endpoint: 'https://push.example.net/send/kept-phone', payload: { kind: 'device_removed', auth_req_id: lostId, summary: expect.stringContaining('"Test phone" was removed by an administrator') } }]);

    // The lost phone's session and push subscription are gone; the other device still works.
    expect((await harness.call('GET', '/api/device/devices', { headers: { cookie: lost.cookie, origin: harness.issuer } })).status).toBe(401);
    expect(await harness.store.hashGet(keys.devicePush('default', 'ops_carol', lostId))).toBeNull();
    const remaining = JSON.parse((await cli(['devices', 'list', 'ops_carol', '--json'])).stdout);
    expect(remaining.devices.map((device: { device_id: string }) => device.device_id)).not.toContain(lostId);
    expect(remaining.devices).toHaveLength(1);
    const removal = (await auditTypes()).find((event) => event.type === 'device_removed' && event.device_id === lostId);
    expect(removal).toMatchObject({ channel: 'admin', sub: 'ops_carol', detail: { by: 'operator', target_device_id: lostId } });
    expect((await cli(['device', 'revoke', 'ops_carol', lostId])).stderr).toContain('error: not_found');
  });

  it('exports a user\'s data as JSON: record, roles, devices without keys, and their requests', async () => {
    const dave = await harness.enrollUser('ops_dave');
    const credentials = await harness.createClient('Export agent');
    const agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
    const asked = await agent.requestApproval({ login_hint: dave.sub, authorization_details: payment({ transaction_id: 'txn_export' }), binding_message: 'Order 77' });
    expect((await harness.decide(dave, asked.auth_req_id, 'deny')).status).toBe(200);

    const run = await cli(['user', 'export', 'ops_dave']);
    expect(run.code, run.stderr).toBe(0);
    const exported = JSON.parse(run.stdout);
    expect(exported.user).toMatchObject({ sub: 'ops_dave', tenant: 'default', created_at: expect.stringMatching(/Z$/) });
    expect(exported.devices).toEqual([expect.objectContaining({ name: 'Test phone', push_subscriptions: 0 })]);
    expect(JSON.stringify(exported)).not.toContain('public_key');
    expect(exported.requests).toEqual([expect.objectContaining({ auth_req_id: asked.auth_req_id, state: 'denied', binding_message: 'Order 77' })]);
    expect(exported.exported_at).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect((await auditTypes()).some((event) => event.type === 'user_exported' && event.sub === 'ops_dave')).toBe(true);
    expect((await cli(['user', 'export', 'nobody_here'])).stderr).toContain('error: not_found');
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

/** Bad input to the new admin routes: 4xx with an OAuth-style body, never 5xx. */
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
    const created = await harness.admin('POST', '/clients', { name: 'Keyed', tenant: 'acme', token_endpoint_auth_method: 'private_key_jwt', jwks: { keys: [{ kty: 'EC', crv: 'P-256', x: 'f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU', y: 'x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0', use: 'sig', alg: 'ES256', kid: 'k1' }] } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const id = created.body.client_id as string;
    expect(await harness.admin('POST', `/clients/${id}/secret?tenant=acme`)).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
    expect((await harness.admin('POST', `/clients/${id}/disable`)).status).toBe(404);
    expect((await harness.admin('GET', '/clients?tenant=acme')).body.clients.map((client: { client_id: string }) => client.client_id)).toEqual([id]);
    expect((await harness.admin('GET', '/clients')).body.clients.map((client: { client_id: string }) => client.client_id)).not.toContain(id);
  });

  it('gives the console\'s own client no secret: its test requests stay impossible to execute', async () => {
    await harness.enrollUser('console_target');
    const asked = await harness.admin('POST', '/test-requests', { login_hint: 'console_target', sample: 'deletion' });
    expect(asked.status, JSON.stringify(asked.body)).toBe(201);
    expect(await harness.admin('POST', `/clients/${asked.body.client_id}/secret`)).toMatchObject({ status: 400, body: { error: 'invalid_request', error_description: expect.stringContaining('console') } });
  });
});
