import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';

/** The person's decision: a passkey assertion over exactly this request and this decision (docs/design.md guarantee 4). */
describe('a decision on the device', () => {
  let harness: Harness;
  let agent: AgentClient;

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  const device = (user: EnrolledUser, method: string, path: string, body?: unknown, origin: string | null = harness.issuer) => harness.call(method, `/api/device${path}`, { body, headers: { cookie: user.cookie, ...(origin ? { origin } : {}) } });

  async function ask(user: EnrolledUser, transactionId = 'txn_1042') {
    return (await agent.requestApproval({ login_hint: user.sub, authorization_details: payment({ transaction_id: transactionId }) })).auth_req_id;
  }

  async function stateOf(authReqId: string): Promise<string> {
    return (await agent.getRequest(authReqId)).state;
  }

  async function refusals(authReqId: string): Promise<string[]> {
    const audit = await harness.admin('GET', `/audit?auth_req_id=${authReqId}`);
    return audit.body.events.filter((event: { type: string }) => event.type === 'refused').map((event: { reason: string }) => event.reason);
  }

  it('shows the server-computed display and one option set per decision, each with its own challenge', async () => {
    const user = await harness.enrollUser('alice');
    const id = await ask(user);
    const view = await device(user, 'GET', `/requests/${id}`);
    expect(view.status).toBe(200);
    expect(view.body.request).toMatchObject({ state: 'pending', client_name: 'Support agent', seconds_left: 300 });
    expect(view.body.request.actions[0]).toMatchObject({ title: 'Pay EUR 490.00 to ACME Ltd', amount: { formatted: '€490.00', formatted_code: 'EUR 490.00' } });
    expect(view.body.options.approve.userVerification).toBe('required');
    expect(view.body.options.approve.challenge).not.toBe(view.body.options.deny.challenge);
    expect(view.body.options.approve.allowCredentials).toEqual([expect.objectContaining({ id: user.authenticator.credentialId })]);
  });

  it('accepts a signature counter of 0 after 0 (synced passkeys)', async () => {
    const user = await harness.enrollUser('alice', { counter: 'fixed' });
    const id = await ask(user);
    expect((await harness.decide(user, id, 'approve')).status).toBe(200);
    expect(user.authenticator.signCount).toBe(0);
    expect(await stateOf(id)).toBe('approved');
  });

  it('refuses and audits a signature counter that goes backwards', async () => {
    const user = await harness.enrollUser('alice');
    const first = await ask(user, 'txn_1');
    expect((await harness.decide(user, first, 'approve')).status).toBe(200);
    const second = await ask(user, 'txn_2');
    const refused = await harness.decide(user, second, 'approve', { signCount: 1 });
    expect([refused.status, refused.body.error]).toEqual([400, 'counter_regression']);
    expect(await stateOf(second)).toBe('pending');
    expect(await refusals(second)).toEqual(['counter_regression']);
  });

  it('uses a challenge once: replaying an assertion is refused even though it verified before', async () => {
    const user = await harness.enrollUser('alice');
    const id = await ask(user);
    const view = await device(user, 'GET', `/requests/${id}`);
    const assertion = await user.authenticator.authenticate(view.body.options.deny);
    expect((await device(user, 'POST', `/requests/${id}/decision`, { decision: 'deny', response: assertion })).status).toBe(200);
    const replay = await device(user, 'POST', `/requests/${id}/decision`, { decision: 'deny', response: assertion });
    expect([replay.status, replay.body.error]).toEqual([400, 'invalid_assertion']);
  });

  it('deletes the challenge on a failed attempt too', async () => {
    const user = await harness.enrollUser('alice');
    const id = await ask(user);
    const view = await device(user, 'GET', `/requests/${id}`);
    const withoutUv = await user.authenticator.authenticate(view.body.options.approve, { userVerified: false });
    expect((await device(user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: withoutUv })).body.error).toBe('invalid_assertion');
    const proper = await user.authenticator.authenticate(view.body.options.approve);
    expect((await device(user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: proper })).body.error).toBe('invalid_assertion');
    expect(await stateOf(id)).toBe('pending');
  });

  it.each([
    ['without user verification', { userVerified: false }],
    ['made for another origin', { origin: 'https://phish.example' }],
  ])('refuses an assertion %s', async (_name, overrides) => {
    const user = await harness.enrollUser('alice');
    const id = await ask(user);
    const refused = await harness.decide(user, id, 'approve', overrides);
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_assertion']);
    expect(await stateOf(id)).toBe('pending');
    expect(await refusals(id)).toEqual(['invalid_assertion']);
  });

  it('binds the assertion to the decision: the deny prompt cannot approve', async () => {
    const user = await harness.enrollUser('alice');
    const id = await ask(user);
    const view = await device(user, 'GET', `/requests/${id}`);
    const denyAssertion = await user.authenticator.authenticate(view.body.options.deny);
    const refused = await device(user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: denyAssertion });
    expect(refused.body.error).toBe('invalid_assertion');
    expect(await stateOf(id)).toBe('pending');
  });

  it('binds the assertion to the request: a prompt for one request cannot decide another', async () => {
    const user = await harness.enrollUser('alice');
    const first = await ask(user, 'txn_1');
    const second = await ask(user, 'txn_2');
    const view = await device(user, 'GET', `/requests/${first}`);
    const assertion = await user.authenticator.authenticate(view.body.options.approve);
    const refused = await device(user, 'POST', `/requests/${second}/decision`, { decision: 'approve', response: assertion });
    expect(refused.body.error).toBe('invalid_assertion');
    expect([await stateOf(first), await stateOf(second)]).toEqual(['pending', 'pending']);
  });

  it('shows a device only its own user’s requests', async () => {
    const alice = await harness.enrollUser('alice');
    const mallory = await harness.enrollUser('mallory');
    const id = await ask(alice);
    expect((await device(mallory, 'GET', `/requests/${id}`)).status).toBe(404);
    expect((await device(mallory, 'GET', '/requests')).body.requests).toEqual([]);
    expect((await device(alice, 'GET', '/requests')).body.requests.map((request: { auth_req_id: string }) => request.auth_req_id)).toEqual([id]);
  });

  it('refuses a state-changing call without the app’s Origin (CSRF)', async () => {
    const user = await harness.enrollUser('alice');
    const id = await ask(user);
    const view = await device(user, 'GET', `/requests/${id}`);
    const assertion = await user.authenticator.authenticate(view.body.options.approve);
    const crossSite = await device(user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: assertion }, 'https://evil.example');
    expect([crossSite.status, crossSite.body.error]).toEqual([403, 'invalid_origin']);
    expect((await device(user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: assertion }, null)).status).toBe(403);
    expect(await stateOf(id)).toBe('pending');
  });

  it('uses an enrollment code once', async () => {
    await harness.admin('POST', '/users', { sub: 'bob' });
    const code = (await harness.admin('POST', '/users/bob/enrollments')).body.enrollment_code;
    const first = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
    expect(first.status).toBe(200);
    expect(first.body.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    expect(first.body.attestation).toBe('none');
    const { createSoftAuthenticator } = await import('./support/soft-authenticator.ts');
    const phone = createSoftAuthenticator({ origin: harness.issuer, rpId: 'localhost' });
    const response = await phone.register(first.body);
    const verify = () => harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response }, headers: { origin: harness.issuer } });
    expect((await verify()).status).toBe(200);
    const again = await verify();
    expect([again.status, again.body.error]).toEqual([400, 'invalid_enrollment_code']);
  });
});
