import { keys } from '@countersign/server';
import { createAgentClient } from '@countersign/agent';
import { createECDH, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EnrolledUser, Harness } from './support/harness.ts';
import { cursorIn, rows, startOperatorServer, type OperatorServer } from './support/operator-server.ts';
import { payment } from './support/payment.ts';

/**
 * The operator's user tools (docs/operator-tools.md) through the CLI (`tsx server/src/operator/cli.ts`, stdout
 * a pipe, so tab-separated) against a server listening on a socket, each checked by what it
 * changed: lists and search, roles, blocks, a user's devices and revoking one, the export.
 */
describe('operator tools for users: the CLI against a running server', { timeout: 90_000 }, () => {
  let server: OperatorServer;
  let harness: Harness;
  let cli: OperatorServer['cli'];
  let auditTypes: OperatorServer['audit'];

  beforeAll(async () => {
    server = await startOperatorServer();
    ({ harness, cli, audit: auditTypes } = server);
  });
  afterAll(() => server?.harness.close());

  it('lists users a page at a time, by sub, and searches them by sub or name', async () => {
    for (const [sub, name] of [
      ['ops_alice', 'Alice Martin'],
      ['ops_amy', 'Amy Chen'],
      ['ops_zed', 'Zed Alinsky'],
    ])
      await harness.admin('POST', '/users', { sub, display_name: name });
    const first = await cli(['users', 'list', '--q', 'ops_', '--limit', '2']);
    expect(first.code, first.stderr).toBe(0);
    expect(rows(first.stdout).map((row) => row.slice(0, 2))).toEqual([
      ['ops_alice', 'Alice Martin'],
      ['ops_amy', 'Amy Chen'],
    ]);
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
    expect(rows(set.stdout)).toEqual([
      ['sub', 'ops_amy'],
      ['roles', 'reviewer:finance reviewer:legal'],
    ]);
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
    expect(
      rows(listed.stdout)
        .map((row) => [row[0], row[1], row[4]])
        .sort(),
    ).toEqual(mine.body.devices.map((device: { device_id: string }) => [device.device_id, 'Test phone', '1']).sort());

    const revoked = await cli(['device', 'revoke', 'ops_carol', lostId]);
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout.trim()).toBe(lostId);
    expect(revoked.stderr).toContain('1 of their other push subscriptions were told');
    expect(server.pushes).toEqual([{ endpoint: 'https://push.example.net/send/kept-phone', payload: { kind: 'device_removed', auth_req_id: lostId, summary: expect.stringContaining('"Test phone" was removed by an administrator') } }]);

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

  it("exports a user's data as JSON: record, roles, devices without keys, and their requests", async () => {
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
});
