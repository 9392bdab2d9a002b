import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { answer, bcAuthorize, device, enrollWithRoles, pay, pollToken, testPolicy, watchAudit, type SeenEvent } from './policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** "This wasn't me" (docs/guarantees.md "Push fatigue"): deny, record a fraud report, block the client for this user until an operator clears it. */
describe.each(['memory', 'redis'] as const)('"this wasn\'t me" (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let client: Client;
  let audit: SeenEvent[];
  let pushes: string[];

  async function start(env: Record<string, string> = {}) {
    harness = await createHarness({ store: storeKind, env });
    customer = await harness.enrollUser('customer_1');
    client = await harness.createClient('Refund agent');
    audit = watchAudit(harness);
    pushes = [];
    const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
    harness.deps.push.notifyUser = async (input) => {
      pushes.push(input.auth_req_id);
      return notifyUser(input);
    };
  }
  afterEach(() => harness.close());

  const ask = async (transactionId: string, as: Client = client, sub = customer.sub) => bcAuthorize(harness, as, { login_hint: sub, details: pay(transactionId) });
  const report = (user: EnrolledUser, id: string) => answer(harness, user, id, { decision: 'deny', path: 'report' });
  const requestOf = async (id: string) => (await harness.admin('GET', `/requests/${id}`)).body.request;

  it('denies the request, records a fraud report, and blocks that client from asking this user again', async () => {
    await start();
    const id = (await ask('txn_1')).body.auth_req_id;
    const view = await device(harness, customer, 'GET', `/requests/${id}`);
    expect(view.body.request.viewer.can_report).toBe(true);
    const reported = await report(customer, id);
    expect([reported.status, reported.body.request.state]).toEqual([200, 'denied']);
    const reportedAt = (await requestOf(id)).fraud_reported_at as string;
    expect(reportedAt).toBe(new Date(Date.parse(reportedAt)).toISOString());
    expect(Date.parse(reportedAt)).toBeLessThanOrEqual(harness.clock.now());
    expect((await pollToken(harness, client, id)).body.error).toBe('access_denied');
    expect(audit.filter((event) => ['denied', 'fraud_reported'].includes(event.type)).map((event) => [event.type, event.channel, event.sub, event.client_id, event.detail])).toEqual([
      ['denied', 'device', 'customer_1', client.client_id, { party: 'customer', cause: 'fraud_reported' }],
      ['fraud_reported', 'device', 'customer_1', client.client_id, { blocked_client_id: client.client_id }],
    ]);

    await harness.deps.background.drain();
    const pushedBefore = pushes.length;
    const blocked = await ask('txn_2');
    expect([blocked.status, blocked.body.error]).toEqual([403, 'client_blocked']);
    await harness.deps.background.drain();
    expect(pushes).toHaveLength(pushedBefore);
    expect((await device(harness, customer, 'GET', '/requests')).body.requests).toEqual([]);
    expect(audit.filter((event) => event.type === 'refused').map((event) => [event.reason, event.client_id, event.channel])).toEqual([['client_blocked', client.client_id, 'agent']]);

    // The block is for this client and this user only.
    const other = await harness.createClient('Other agent');
    expect((await ask('txn_3', other)).status).toBe(200);
    const second = await harness.enrollUser('customer_2');
    expect((await ask('txn_4', client, second.sub)).status).toBe(200);
  });

  it('keeps the block until an operator clears it with DELETE /api/admin/users/{sub}/blocks/{client_id}, audited', async () => {
    await start();
    const id = (await ask('txn_1')).body.auth_req_id;
    await report(customer, id);
    harness.clock.advance(86_400);
    expect((await ask('txn_2')).body.error).toBe('client_blocked');
    const listed = await harness.admin('GET', `/users/${customer.sub}`);
    expect(listed.body.blocks).toEqual([{ client_id: client.client_id, auth_req_id: id, blocked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/) }]);
    expect((await harness.admin('DELETE', `/users/${customer.sub}/blocks/${client.client_id}`)).status).toBe(204);
    expect((await harness.admin('DELETE', `/users/${customer.sub}/blocks/${client.client_id}`)).status).toBe(404);
    expect(audit.filter((event) => event.type === 'client_unblocked').map((event) => [event.sub, event.client_id, event.channel])).toEqual([[customer.sub, client.client_id, 'admin']]);
    expect((await ask('txn_2')).status).toBe(200);
  });

  it('refuses a report from another origin or without a session, changing nothing', async () => {
    await start();
    const id = (await ask('txn_1')).body.auth_req_id;
    const view = await device(harness, customer, 'GET', `/requests/${id}`);
    const response = await customer.authenticator.authenticate(view.body.options.deny);
    const crossSite = await harness.call('POST', `/api/device/requests/${id}/report`, { body: { response }, headers: { cookie: customer.cookie, origin: 'https://evil.example' } });
    expect([crossSite.status, crossSite.body.error]).toEqual([403, 'invalid_origin']);
    const noSession = await harness.call('POST', `/api/device/requests/${id}/report`, { body: { response }, headers: { origin: harness.issuer } });
    expect([noSession.status, noSession.body.error]).toEqual([401, 'login_required']);
    expect((await requestOf(id)).state).toBe('pending');
    expect((await harness.admin('GET', `/users/${customer.sub}`)).body.blocks).toEqual([]);
  });

  it('needs the passkey over the deny prompt: an approve prompt’s assertion or none is refused and audited, changing nothing', async () => {
    await start();
    const id = (await ask('txn_1')).body.auth_req_id;
    const view = await device(harness, customer, 'GET', `/requests/${id}`);
    const approveAssertion = await customer.authenticator.authenticate(view.body.options.approve);
    const wrongPrompt = await device(harness, customer, 'POST', `/requests/${id}/report`, { response: approveAssertion });
    expect([wrongPrompt.status, wrongPrompt.body.error]).toEqual([400, 'invalid_assertion']);
    const empty = await device(harness, customer, 'POST', `/requests/${id}/report`, {});
    expect([empty.status, empty.body.error]).toEqual([400, 'invalid_request']);
    expect((await requestOf(id)).state).toBe('pending');
    expect(audit.filter((event) => event.type === 'refused').map((event) => event.reason)).toEqual(['invalid_assertion']);
    expect((await ask('txn_2')).status).toBe(200);
  });

  it('lets only the person the request is for report it: a reviewer’s report is refused and blocks nothing', async () => {
    const policy = testPolicy((p) => {
      p.tiers[0].approvers = ['customer', { role: 'reviewer:finance' }];
    });
    await start({ POLICY_FILE: policy });
    const reviewer = await enrollWithRoles(harness, 'rita', ['reviewer:finance']);
    const id = (await ask('txn_1')).body.auth_req_id;
    expect((await device(harness, reviewer, 'GET', `/requests/${id}`)).body.request.viewer.can_report).toBe(false);
    const refused = await report(reviewer, id);
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_request']);
    expect(audit.filter((event) => event.type === 'refused').map((event) => [event.reason, event.sub, event.detail?.decision])).toEqual([['invalid_request', 'rita', 'report']]);
    expect((await requestOf(id)).state).toBe('pending');
    expect((await harness.admin('GET', `/users/${customer.sub}`)).body.blocks).toEqual([]);
  });
});
