import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiPath, operationKey, OPERATIONS } from '../server/src/openapi/index.ts';
import { answer, bcAuthorize, device, pollToken } from './guarantees/policy-support.ts';
import { createHarness, UNLIMITED_RATES, type EnrolledUser, type Harness } from './support/harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from './support/mandate.ts';
import { check, checkSent, documentedRoutes, METHODS, refsOf, registeredRoutes, resolvePointer, validator, type Doc, type Seen } from './support/openapi-document.ts';
import { operatorToolsFlow } from './support/openapi-operator-flow.ts';
import { payment } from './support/payment.ts';
import { basic } from './support/raw-request.ts';
let harness: Harness;
let doc: Doc;
const seen: Seen[] = [];

beforeAll(async () => {
  harness = await createHarness({ env: UNLIMITED_RATES });
  // Every answer of the app is recorded, those of the harness's own helpers (enrollment, admin) too.
  const request = harness.app.request.bind(harness.app);
  harness.app.request = (async (input: string | Request | URL, init?: RequestInit) => {
    const response = await request(input as string, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    const method = (input instanceof Request ? input.method : init?.method) ?? 'GET';
    const contentType = response.headers.get('content-type') ?? '';
    // An event stream does not end: its status and type are checked, not its body.
    const text = contentType.startsWith('text/event-stream') ? '' : await response.clone().text();
    const headers = new Headers(init?.headers);
    const sent = typeof init?.body === 'string' ? { contentType: headers.get('content-type') ?? '', text: init.body } : undefined;
    seen.push({ method, path: url.pathname, status: response.status, contentType, text, ...(sent ? { sent } : {}) });
    return response;
  }) as typeof harness.app.request;
  const served = await harness.call('GET', '/openapi.json');
  expect(served.status).toBe(200);
  expect(served.headers.get('cache-control')).toBe('public, max-age=300');
  doc = served.body;
});

afterAll(async () => {
  await harness?.close();
});

describe('GET /openapi.json', () => {
  it('documents every registered route, and only those', () => {
    const registered = registeredRoutes(harness);
    const documented = documentedRoutes(doc);
    expect(registered.size).toBeGreaterThan(45);
    expect([...registered].filter((route) => !documented.has(route))).toEqual([]);
    expect([...documented].filter((route) => !registered.has(route))).toEqual([]);
    // The registry (server/src/openapi) is what the document is built from, key for key.
    expect(new Set(OPERATIONS.map((operation) => operationKey(operation.method, openApiPath(operation.path))))).toEqual(documented);
    expect(documented.has('GET /requests/{auth_req_id}')).toBe(true);
    expect(documented.has('DELETE /api/admin/users/{sub}/blocks/{client_id}')).toBe(true);
  });

  it('is an OpenAPI 3.1 document whose operations all answer and whose references all resolve', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info.title).toBe('Countersign');
    const operationIds = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths)) {
      expect(path.startsWith('/'), path).toBe(true);
      for (const [method, operation] of Object.entries(item)) {
        expect(METHODS, `${path}: ${method}`).toContain(method);
        const statuses = Object.keys(operation.responses ?? {});
        expect(statuses.length, `${method} ${path}`).toBeGreaterThan(0);
        for (const status of statuses) expect(status, `${method} ${path}`).toMatch(/^[1-5][0-9][0-9]$/);
        expect(operationIds.has(operation.operationId), operation.operationId).toBe(false);
        operationIds.add(operation.operationId);
        // Every `{name}` of the template is a required path parameter, and no other is declared.
        const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
        const declared = (operation.parameters ?? []).filter((parameter: any) => parameter.in === 'path');
        expect(declared.map((parameter: any) => parameter.name).sort(), `${method} ${path}`).toEqual(templated.sort());
        for (const parameter of declared) expect(parameter.required).toBe(true);
        for (const requirement of operation.security ?? []) for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes, scheme).toHaveProperty(scheme);
      }
    }
    const refs = refsOf(doc);
    expect(refs.length).toBeGreaterThan(20);
    for (const { ref, at } of refs) {
      expect(ref, at).toMatch(/^#\//);
      expect(resolvePointer(doc, ref), `${ref} at ${at}`).toBeTypeOf('object');
    }
    expect(doc.components.schemas).toHaveProperty('RequestDisplay');
  });

  it('lists each path’s refusals as OAuth error bodies under their statuses', () => {
    const redeem = doc.paths['/redeem']!.post;
    expect(redeem.responses['409'].content['application/json'].schema.properties.error.enum).toEqual(['stale_record', 'already_redeemed']);
    expect(redeem.responses['403'].content['application/json'].schema.properties.error.enum).toEqual(expect.arrayContaining(['unauthorized_client', 'mandate_revoked']));
    expect(redeem.responses['401'].content['application/json'].schema.properties.error.enum).toEqual(['invalid_client', 'invalid_token']);
    expect(redeem.responses['400'].content['application/json'].schema.required).toEqual(['error', 'error_description']);
    const token = doc.paths['/token']!.post;
    expect(token.responses['400'].content['application/json'].schema.properties.error.enum).toEqual(expect.arrayContaining(['authorization_pending', 'slow_down', 'expired_token', 'access_denied', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type']));
    expect(token.requestBody.content).toHaveProperty(['application/x-www-form-urlencoded']);
    // The request schema is the route's own: /redeem's strict body refuses members it does not list.
    expect(redeem.requestBody.content['application/json'].schema.additionalProperties).toBe(false);
    expect(redeem.requestBody.content['application/json'].schema.required).toEqual(['token']);
  });

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

    const doc2 = validator(doc);
    const problems: string[] = [];
    const checked = new Set<string>();
    const sentChecked = new Set<string>();
    for (const answered of seen) {
      const { key, problem } = check(doc, doc2, answered);
      checked.add(`${key} ${answered.status}`);
      if (problem) problems.push(`${key}: ${problem}`);
      const sentProblem = checkSent(doc, doc2, answered);
      if (sentProblem) problems.push(`${key}: ${sentProblem}`);
      if (answered.sent && answered.status < 300) sentChecked.add(key);
    }
    expect(problems).toEqual([]);
    // What the flow reached: every agent path, the device and admin paths above, and refusals.
    const operations = new Set([...checked].map((entry) => entry.split(' ').slice(0, 2).join(' ')));
    expect([...documentedRoutes(doc)].filter((route) => !operations.has(route))).toEqual([]);
    // And what accepted calls sent fits the documented request bodies, forms included.
    for (const expected of ['POST /bc-authorize', 'POST /token', 'POST /redeem', 'POST /api/admin/clients', 'POST /api/device/enroll/verify', 'POST /api/device/requests/{auth_req_id}/decision']) {
      expect(sentChecked, expected).toContain(expected);
    }
    for (const expected of [
      'POST /bc-authorize 200',
      'POST /token 200',
      'POST /token 400',
      'POST /redeem 200',
      'POST /redeem 400',
      'POST /redeem 409',
      'POST /redeem 415',
      'POST /redemptions/{redemption_id}/outcome 409',
      'GET /requests/{auth_req_id} 200',
      'POST /requests/{auth_req_id} 401',
      'GET /api/device/requests/{auth_req_id} 200',
      'GET /api/device/requests 401',
      'POST /api/device/enrollments/options 403',
      'POST /api/device/requests/{auth_req_id}/decision 200',
      'PUT /api/admin/tenants/{tenant}/policy 400',
      'GET /api/admin/users/{sub} 401',
      'DELETE /api/device/devices/{device_id} 204',
      'POST /bc-authorize 403',
      'POST /redeem 401',
      'POST /api/device/requests/{auth_req_id}/report 200',
      'POST /api/device/enrollments 201',
      'POST /api/device/mandates/{auth_req_id}/revoke 200',
      'GET /api/device/mandates/{auth_req_id} 200',
      'GET /api/admin/mandates/{auth_req_id}/evidence 200',
      'POST /api/admin/mandates/{auth_req_id}/revoke 200',
      'POST /redeem 403',
      'GET /api/device/events 200',
      'GET /api/admin/users 400',
      'GET /api/admin/clients 400',
      'GET /api/admin/clients/{client_id} 404',
      'DELETE /api/admin/users/{sub}/devices/{device_id} 200',
      'GET /api/admin/users/{sub}/export 200',
      'POST /api/admin/clients/{client_id}/secret 200',
      'DELETE /api/admin/clients/{client_id} 204',
    ]) {
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
