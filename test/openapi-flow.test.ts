import { describe, expect, it } from 'vitest';
import { answer, bcAuthorize, device, pollToken } from './guarantees/policy-support.ts';
import type { EnrolledUser } from './support/harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from './support/mandate.ts';
import { check, validator } from './support/openapi-document.ts';
import { operatorReadsAndWrites, operatorToolsFlow } from './support/openapi-operator-flow.ts';
import { coverage, doc, FLOW_ANSWERS, harness, recordedHarness, SENT_BODIES, seen } from './support/openapi-recorded.ts';
import { payment } from './support/payment.ts';
import { basic } from './support/raw-request.ts';

/** What the routes answer in a flow through every operation, errors included, fits the document. */
recordedHarness();

describe('GET /openapi.json', () => {
  it('describes what the routes answer in a real flow, errors included', async () => {
    const h = harness;
    const adminHeaders = { authorization: `Bearer ${h.adminToken}` };
    for (const path of ['/healthz', '/readyz', '/.well-known/openid-configuration', '/.well-known/oauth-authorization-server', '/jwks.json']) await h.call('GET', path);
    await h.call('GET', '/metrics', { headers: adminHeaders });

    const client = await h.createClient('OpenAPI agent');
    const alice: EnrolledUser = await h.enrollUser('alice');
    await device(h, alice, 'GET', '/me');
    await device(h, alice, 'PUT', '/push-subscription', { endpoint: 'https://push.example.com/send/abc', keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) } });
    await device(h, alice, 'GET', '/mandates');

    // Ask, poll too early, read the client view, then decide on the phone.
    const asked = await bcAuthorize(h, client, { login_hint: 'alice', details: payment({ amount_minor: 1200 }) });
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    const authReqId = asked.body.auth_req_id as string;
    expect((await pollToken(h, client, authReqId)).body.error).toBe('authorization_pending');
    await h.call('GET', `/requests/${authReqId}`, { headers: { authorization: basic(client) } });
    await h.call('POST', `/requests/${authReqId}`, { body: new URLSearchParams({ client_id: client.client_id, client_secret: client.client_secret }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    await h.admin('GET', '/requests?state=pending');
    await device(h, alice, 'GET', '/requests');
    const decided = await answer(h, alice, authReqId, asked.body.binding_code === undefined ? { decision: 'approve' } : { decision: 'approve', code: asked.body.binding_code });
    expect(decided.status, JSON.stringify(decided.body)).toBe(200);
    await h.admin('GET', `/requests/${authReqId}`);

    // Token, a tampered redemption, the redemption, a second one, the outcome and a conflicting one.
    const token = await pollToken(h, client, authReqId);
    expect(token.status, JSON.stringify(token.body)).toBe(200);
    const redeem = (details: unknown) => h.call('POST', '/redeem', { body: { token: token.body.access_token, authorization_details: details }, headers: { authorization: basic(client) } });
    expect((await redeem(payment({ amount_minor: 1201 }))).body.error).toBe('approval_mismatch');
    const redeemed = await redeem(token.body.authorization_details);
    expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
    expect((await redeem(token.body.authorization_details)).body.error).toBe('already_redeemed');
    const outcome = (status: string, redemptionId: string = redeemed.body.redemption_id) => h.call('POST', `/redemptions/${redemptionId}/outcome`, { body: { status }, headers: { authorization: basic(client) } });
    expect((await outcome('succeeded')).status).toBe(200);
    expect((await outcome('failed')).body.error).toBe('outcome_conflict');
    await h.admin('GET', `/audit?auth_req_id=${authReqId}`);

    // A denial, seen by the agent.
    const second = await bcAuthorize(h, client, { login_hint: 'alice', details: payment({ transaction_id: 'txn_2', amount_minor: 300 }) });
    await answer(h, alice, second.body.auth_req_id, { decision: 'deny' });
    expect((await pollToken(h, client, second.body.auth_req_id)).body.error).toBe('access_denied');

    // Refusals of each kind of caller.
    expect((await bcAuthorize(h, client, { login_hint: 'nobody' })).body.error).toBe('unknown_user_id');
    expect((await h.call('POST', '/token', { body: 'grant_type=password', headers: { authorization: basic(client), 'content-type': 'application/x-www-form-urlencoded' } })).body.error).toBe('unsupported_grant_type');
    expect((await h.call('POST', '/redeem', { body: 'token=x', headers: { authorization: basic(client), 'content-type': 'text/plain' } })).status).toBe(415);
    expect((await h.call('GET', '/api/device/requests')).body.error).toBe('login_required');
    expect((await h.call('POST', '/api/device/enrollments/options', { headers: { cookie: alice.cookie } })).body.error).toBe('invalid_origin');
    expect((await device(h, alice, 'GET', '/requests/unknownrequest0000000')).body.error).toBe('not_found');
    expect((await h.call('GET', '/api/admin/users/alice', { headers: { authorization: 'Bearer wrong-token-wrong-token-wrong' } })).body.error).toBe('invalid_token');
    expect((await h.admin('PUT', '/tenants/default/policy', { policy: { tiers: 'none' } })).body.error).toBe('invalid_policy');
    expect((await h.admin('DELETE', '/users/alice/blocks/someclient')).body.error).toBe('not_found');

    // The operator's other reads and writes.
    await operatorReadsAndWrites(h, client);

    // "This wasn't me": the client is blocked for alice until the operator clears it.
    const third = await bcAuthorize(h, client, { login_hint: 'alice', details: payment({ transaction_id: 'txn_3', amount_minor: 400 }) });
    expect((await answer(h, alice, third.body.auth_req_id, { decision: 'deny', path: 'report' })).status).toBe(200);
    expect((await bcAuthorize(h, client, { login_hint: 'alice', details: payment({ transaction_id: 'txn_4', amount_minor: 400 }) })).body.error).toBe('client_blocked');
    expect((await h.admin('GET', '/users/alice')).body.blocks).toEqual([expect.objectContaining({ client_id: client.client_id, auth_req_id: third.body.auth_req_id })]);
    expect((await h.admin('DELETE', `/users/alice/blocks/${client.client_id}`)).status).toBe(204);

    // A standing mandate: approved, spent under, reported on, read, its evidence, revoked on the phone.
    const standing = await approvedMandate(h, client, alice, mandate(h.clock.now()));
    const spent = await spend(h, client, standing.token, spendPayment('bill_1'));
    expect(spent.status, JSON.stringify(spent.body)).toBe(200);
    expect((await outcome('succeeded', spent.body.redemption_id)).status).toBe(200);
    await device(h, alice, 'GET', '/mandates');
    const opened = await device(h, alice, 'GET', `/mandates/${standing.auth_req_id}`);
    expect((await h.admin('GET', `/mandates/${standing.auth_req_id}/evidence`)).status).toBe(200);
    const revokeResponse = await alice.authenticator.authenticate(opened.body.options.revoke);
    expect((await device(h, alice, 'POST', `/mandates/${standing.auth_req_id}/revoke`, { response: revokeResponse })).status).toBe(200);
    expect((await h.admin('POST', `/mandates/${standing.auth_req_id}/revoke`)).status).toBe(200);
    expect((await spend(h, client, standing.token, spendPayment('bill_2'))).body.error).toBe('mandate_revoked');

    // The operator tools (docs/operator-tools.md): users, devices, an export, clients.
    await operatorToolsFlow(h, alice);

    // The live stream answers as an event stream (its body is never read to the end).
    const stream = await h.app.request(`${h.issuer}/api/device/events`, { headers: { cookie: alice.cookie, accept: 'text/event-stream' } });
    expect(stream.status).toBe(200);
    await stream.body?.cancel();

    // The approver's account, and last the removal of this very device.
    await device(h, alice, 'GET', '/history');
    const devices = await device(h, alice, 'GET', '/devices');
    const deviceId = devices.body.devices[0].device_id as string;
    await device(h, alice, 'PATCH', `/devices/${deviceId}`, { name: 'Work phone' });
    const addDevice = await device(h, alice, 'POST', '/enrollments/options');
    expect((await device(h, alice, 'POST', '/enrollments', { response: await alice.authenticator.authenticate(addDevice.body) })).status).toBe(201);
    expect((await device(h, alice, 'GET', '/mandates/unknownrequest0000000')).body.error).toBe('not_found');
    expect((await device(h, alice, 'DELETE', `/devices/${deviceId}`)).status).toBe(204);

    const { problems, checked, sentChecked, unreached } = coverage(doc, seen);
    expect(problems).toEqual([]);
    // What the flow reached: every agent path, the device and admin paths above, and refusals.
    expect(unreached).toEqual([]);
    // And what accepted calls sent fits the documented request bodies, forms included.
    for (const expected of SENT_BODIES) {
      expect(sentChecked, expected).toContain(expected);
    }
    for (const expected of FLOW_ANSWERS) {
      expect(checked, expected).toContain(expected);
    }
  });

  it('fails an answer that does not match its documented schema', async () => {
    const asked = seen.find((answered) => answered.method === 'POST' && answered.path === '/bc-authorize' && answered.status === 200)!;
    expect(check(doc, validator(doc), asked).problem).toBeNull();
    // The same answer against a document that says `interval` is a string.
    const wrong = structuredClone(doc);
    wrong.paths['/bc-authorize']!.post.responses['200'].content['application/json'].schema.properties.interval = { type: 'string' };
    expect(check(wrong, validator(wrong), asked).problem).toMatch(/interval.*must be string/);
    // And a status the path does not document.
    expect(check(doc, validator(doc), { ...asked, status: 418 }).problem).toMatch(/status 418 not documented/);
  });
});
