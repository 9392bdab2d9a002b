import { expect } from 'vitest';
import type { EnrolledUser, Harness } from './harness.ts';
import { payment } from './payment.ts';
import { basic, type Credentials } from './raw-request.ts';

/**
 * The operator tools' calls of test/openapi-flow.test.ts's flow (docs/operator-tools.md): each route once
 * with a real answer, and one refusal each (404 for an unknown client, user or device, 400 for a bad
 * `limit`), so that the recorded answers are validated against the document. `user` has decided
 * requests by now, so its export holds history entries; a second user's device is revoked.
 */
export async function operatorToolsFlow(h: Harness, user: EnrolledUser): Promise<void> {
  // Users: a page of one, then the next page from its cursor; a search; a bad limit.
  const spare = await h.enrollUser('openapi_spare');
  const first = await h.admin('GET', '/users?limit=1');
  expect(first.status, JSON.stringify(first.body)).toBe(200);
  expect(first.body.users).toHaveLength(1);
  expect(first.body.next_cursor).toEqual(expect.any(String));
  const next = await h.admin('GET', `/users?limit=1&cursor=${first.body.next_cursor}`);
  expect(next.body.users[0].sub > first.body.users[0].sub).toBe(true);
  expect((await h.admin('GET', `/users?q=${user.sub.toUpperCase()}`)).body.users).toEqual([expect.objectContaining({ sub: user.sub, created_at: expect.stringMatching(/Z$/) })]);
  expect(await h.admin('GET', '/users?limit=0')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

  // Devices: listed, one revoked, an unknown one and an unknown user's.
  const devices = await h.admin('GET', `/users/${spare.sub}/devices`);
  expect(devices.status).toBe(200);
  expect(devices.body.next_cursor).toBeNull();
  const deviceId = devices.body.devices[0].device_id as string;
  expect(await h.admin('DELETE', `/users/${spare.sub}/devices/${deviceId}`)).toMatchObject({ status: 200, body: { device_id: deviceId, notified: 0 } });
  expect((await h.admin('GET', `/users/${spare.sub}/devices`)).body.devices).toEqual([]);
  expect(await h.admin('DELETE', `/users/${spare.sub}/devices/${deviceId}`)).toMatchObject({ status: 404, body: { error: 'not_found' } });
  expect(await h.admin('GET', '/users/nobody_here/devices')).toMatchObject({ status: 404, body: { error: 'not_found' } });

  // The export: the user, their device, and the requests of their history.
  const exported = await h.admin('GET', `/users/${user.sub}/export`);
  expect(exported.status).toBe(200);
  expect(exported.body.user.sub).toBe(user.sub);
  expect(exported.body.devices.length).toBeGreaterThan(0);
  expect(exported.body.requests.length).toBeGreaterThan(0);
  // Each request with its own trail, from its proposal on.
  for (const request of exported.body.requests) expect(request.events[0]).toMatchObject({ type: 'proposed', auth_req_id: request.auth_req_id });
  expect(await h.admin('GET', '/users/nobody_here/export')).toMatchObject({ status: 404, body: { error: 'not_found' } });

  // Clients: searched, read, disabled, enabled, a new secret, deleted; each refused for an unknown one.
  const client = await h.createClient('OpenAPI operated client');
  const listed = await h.admin('GET', '/clients?q=openapi%20operated&limit=10');
  expect(listed.body).toEqual({ clients: [expect.objectContaining({ client_id: client.client_id, disabled: false, disabled_at: null })], next_cursor: null });
  expect(await h.admin('GET', '/clients?limit=201')).toMatchObject({ status: 400, body: { error: 'invalid_request' } });
  expect((await h.admin('GET', `/clients/${client.client_id}`)).body.name).toBe('OpenAPI operated client');
  expect((await h.admin('POST', `/clients/${client.client_id}/disable`)).body).toMatchObject({ disabled: true, disabled_at: expect.stringMatching(/Z$/) });
  expect((await h.admin('POST', `/clients/${client.client_id}/enable`)).body).toMatchObject({ disabled: false, disabled_at: null });
  const rotated = await h.admin('POST', `/clients/${client.client_id}/secret`);
  expect(rotated.body.client_secret).not.toBe(client.client_secret);
  expect(rotated.body.secret_rotated_at).toMatch(/Z$/);
  expect((await h.admin('DELETE', `/clients/${client.client_id}`)).status).toBe(204);
  for (const [method, path] of [
    ['GET', ''],
    ['POST', '/disable'],
    ['POST', '/enable'],
    ['POST', '/secret'],
    ['DELETE', ''],
  ] as const) {
    expect(await h.admin(method, `/clients/${client.client_id}${path}`), `${method} ${path}`).toMatchObject({ status: 404, body: { error: 'not_found' } });
  }
}

/**
 * The operator's other reads and writes in test/openapi-flow.test.ts's flow: a user, roles, the
 * tenant policy, test requests, the audit, and refusals for an unknown mandate and a token that is
 * none (presented by `client`).
 */
export async function operatorReadsAndWrites(h: Harness, client: Credentials): Promise<void> {
  await h.admin('GET', '/users/alice');
  await h.admin('PUT', '/users/alice/roles', { roles: ['reviewer:finance'] });
  await h.admin('GET', '/tenants/default/policy');
  await h.admin('GET', '/test-requests/samples');
  await h.admin('POST', '/test-requests', { login_hint: 'alice', sample: 'deletion' });
  await h.admin('GET', '/audit?type=policy_changed');
  await h.admin('DELETE', '/tenants/default/policy');
  expect((await h.admin('POST', '/mandates/unknownrequest0000000/revoke')).body.error).toBe('not_found');
  expect((await h.admin('GET', '/mandates/unknownrequest0000000/evidence')).body.error).toBe('not_found');
  expect((await h.call('POST', '/redeem', { body: { token: 'not-a-token', authorization_details: payment() }, headers: { authorization: basic(client) } })).body.error).toBe('invalid_token');
}
