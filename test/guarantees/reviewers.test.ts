import { keys } from '@countersign/server';
import { base64url, decisionChallenge } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { decodeJwt } from 'jose';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { createSoftAuthenticator } from '../support/soft-authenticator.ts';
import { recordWrites } from '../support/store-watch.ts';
import { payment } from '../support/payment.ts';
import { answer, bcAuthorize, device, enrollWithRoles, onlyTier, pay, pollToken, testPolicy, watchAudit, type SeenEvent } from './policy-support.ts';

type Client = { client_id: string; client_secret: string };

/** A policy whose only tier needs the customer and a finance reviewer, without number matching. */
const customerAndFinance = () =>
  testPolicy((policy) => {
    onlyTier(policy, { name: 'dual', approvers: ['customer', { role: 'reviewer:finance' }], number_matching: false });
  });

/** A tier of two reviewers of different roles, and no customer. */
const twoReviewers = () =>
  testPolicy((policy) => {
    onlyTier(policy, { name: 'two-reviewers', approvers: [{ role: 'reviewer:finance' }, { role: 'reviewer:risk' }], number_matching: false });
  });

/** Reviewers (docs/guarantees.md): every required party approves with its own passkey; any one denies. */
describe.each(['memory', 'redis'] as const)('reviewers (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let reviewer: EnrolledUser;
  let client: Client;
  let audit: SeenEvent[];

  async function start(env: Record<string, string> = { POLICY_FILE: customerAndFinance() }) {
    harness = await createHarness({ store: storeKind, env });
    customer = await harness.enrollUser('customer_1');
    reviewer = await enrollWithRoles(harness, 'rita', ['reviewer:finance']);
    client = await harness.createClient('Refund agent');
    audit = watchAudit(harness);
  }
  afterEach(() => harness.close());

  const ask = async (transactionId = 'txn_1', details = pay(transactionId)) => (await bcAuthorize(harness, client, { login_hint: customer.sub, details })).body.auth_req_id as string;
  const inbox = async (user: EnrolledUser) => ((await device(harness, user, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);
  const stateOf = async (id: string) => (await harness.admin('GET', `/requests/${id}`)).body.request.state as string;

  it('sets roles with POST /api/admin/users and PUT …/roles, stored on the user and audited', async () => {
    await start();
    expect((await harness.admin('GET', '/users/rita')).body.user.roles).toEqual(['reviewer:finance']);
    const changed = await harness.admin('PUT', '/users/customer_1/roles', { roles: ['reviewer:legal', 'approver'] });
    expect([changed.status, changed.body.roles]).toEqual([200, ['reviewer:legal', 'approver']]);
    expect((await harness.admin('PUT', '/users/nobody/roles', { roles: [] })).status).toBe(404);
    expect((await harness.admin('PUT', '/users/rita/roles', { roles: ['Reviewer:{x}'] })).body.error).toBe('invalid_request');
    expect(audit.filter((event) => event.type === 'roles_changed').map((event) => [event.sub, event.detail?.to])).toEqual([['customer_1', 'reviewer:legal approver']]);
  });

  it('puts a request that needs a finance reviewer in the inbox of every finance reviewer of the tenant, and pushes it to them', async () => {
    await start();
    const pushed: string[] = [];
    const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
    harness.deps.push.notifyUser = async (input) => {
      pushed.push(input.sub);
      return notifyUser(input);
    };
    const second = await enrollWithRoles(harness, 'rob', ['reviewer:finance']);
    const legal = await enrollWithRoles(harness, 'lee', ['reviewer:legal']);
    await harness.admin('POST', '/users', { sub: 'tina', roles: ['reviewer:finance'], tenant: 'tenant-b' });
    const id = await ask();
    await harness.deps.background.drain();
    expect([await inbox(customer), await inbox(reviewer), await inbox(second), await inbox(legal)]).toEqual([[id], [id], [id], []]);
    expect(pushed.sort()).toEqual(['customer_1', 'rita', 'rob']);
    const view = await device(harness, reviewer, 'GET', `/requests/${id}`);
    expect(view.body.request).toMatchObject({ tier: 'dual', number_matching: null, viewer: { party: 'role:reviewer:finance', can_decide: true, can_report: false } });
    expect(view.body.options.approve.allowCredentials).toEqual([expect.objectContaining({ id: reviewer.authenticator.credentialId })]);
    expect((await device(harness, legal, 'GET', `/requests/${id}`)).status).toBe(404);
  });

  it('stays pending until every required party has approved with its own passkey; the token comes after the last', async () => {
    await start();
    const id = await ask();
    expect((await answer(harness, customer, id, { decision: 'approve' })).body.request).toMatchObject({
      state: 'pending',
      approvals: [
        { party: 'customer', status: 'approved' },
        { party: 'role:reviewer:finance', status: 'waiting' },
      ],
    });
    expect((await pollToken(harness, client, id)).body.error).toBe('authorization_pending');
    const again = await device(harness, customer, 'GET', `/requests/${id}`);
    expect(again.body.request.viewer).toEqual({ party: null, can_decide: true, can_report: true });
    expect(again.body.options.approve).toBeNull();

    expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
    harness.clock.advance(5);
    const token = await pollToken(harness, client, id);
    expect(token.status).toBe(200);
    const stored = (await harness.admin('GET', `/requests/${id}`)).body.request;
    expect(stored.approvals.map((given: { party: string; sub: string; credential_id: string }) => [given.party, given.sub, given.credential_id])).toEqual([
      ['customer', 'customer_1', customer.authenticator.credentialId],
      ['role:reviewer:finance', 'rita', reviewer.authenticator.credentialId],
    ]);
    expect(audit.filter((event) => ['party_approved', 'approved'].includes(event.type)).map((event) => [event.type, event.sub, event.detail?.party])).toEqual([
      ['party_approved', 'customer_1', 'customer'],
      ['approved', 'rita', 'role:reviewer:finance'],
    ]);
  });

  it('denies the request when any required party denies, whatever the others did', async () => {
    await start();
    const id = await ask();
    expect((await answer(harness, customer, id, { decision: 'approve' })).status).toBe(200);
    expect((await answer(harness, reviewer, id, { decision: 'deny' })).body.request.state).toBe('denied');
    expect((await pollToken(harness, client, id)).body.error).toBe('access_denied');
    expect(await inbox(reviewer)).toEqual([]);
    expect(audit.find((event) => event.type === 'denied')).toMatchObject({ sub: 'rita', detail: { party: 'role:reviewer:finance', cause: 'denied' } });
  });

  it('gives a reviewer no way to change the action: the decision carries no details and the passkey signs the stored details_hash', async () => {
    await start();
    const id = await ask();
    const stored = (await harness.admin('GET', `/requests/${id}`)).body.request;
    const view = await device(harness, reviewer, 'GET', `/requests/${id}`);
    const challenge = view.body.options.approve.challenge as string;
    const record = JSON.parse((await harness.store.get(keys.decisionChallenge('default', challenge)))!);
    expect(record).toMatchObject({ auth_req_id: id, decision: 'approve', sub: 'rita', party: 'role:reviewer:finance' });
    expect(base64url(await decisionChallenge({ auth_req_id: id, details_hash: stored.details_hash, decision: 'approve', nonce: record.nonce }))).toBe(challenge);

    const response = await reviewer.authenticator.authenticate(view.body.options.approve);
    const changed = await device(harness, reviewer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response, authorization_details: payment({ amount_minor: 1 }) });
    expect([changed.status, changed.body.error]).toEqual([400, 'invalid_request']);
    expect((await answer(harness, customer, id, { decision: 'approve' })).status).toBe(200);
    expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
    const token = await pollToken(harness, client, id);
    expect(decodeJwt(token.body.access_token)).toMatchObject({ details_hash: stored.details_hash, authorization_details: pay('txn_1') });
  });

  it('keeps the duties apart: the customer holding the reviewer role cannot approve as reviewer, nor one reviewer twice', async () => {
    await start();
    await harness.admin('PUT', '/users/customer_1/roles', { roles: ['reviewer:finance'] });
    const id = await ask();
    expect((await answer(harness, customer, id, { decision: 'approve' })).body.request.state).toBe('pending');
    expect((await device(harness, customer, 'GET', `/requests/${id}`)).body.options.approve).toBeNull();
    expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');

    const two = await (async () => {
      await harness.close();
      await start({
        POLICY_FILE: testPolicy((policy) => {
          onlyTier(policy, { name: 'two-reviewers', approvers: [{ role: 'reviewer:finance' }, { role: 'reviewer:risk' }], number_matching: false });
        }),
      });
      await harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance', 'reviewer:risk'] });
      // Someone else can fill the other role (rita alone could fill only one: no_approver, below).
      await harness.admin('POST', '/users', { sub: 'rob', roles: ['reviewer:risk'] });
      return ask('txn_2');
    })();
    expect((await answer(harness, reviewer, two, { decision: 'approve' })).body.request).toMatchObject({ state: 'pending', approvals: [{ status: 'approved' }, { status: 'waiting' }] });
    const view = await device(harness, reviewer, 'GET', `/requests/${two}`);
    expect([view.body.request.viewer.party, view.body.options]).toEqual([null, null]);
  });

  it('lets a reviewer act only in its own tenant, and stops one whose role was removed at once', async () => {
    await start();
    const id = await ask();
    const view = await device(harness, reviewer, 'GET', `/requests/${id}`);
    await harness.admin('PUT', '/users/rita/roles', { roles: [] });
    const response = await reviewer.authenticator.authenticate(view.body.options.approve);
    const refused = await device(harness, reviewer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response });
    expect([refused.status, refused.body.error]).toEqual([404, 'not_found']);
    expect(await stateOf(id)).toBe('pending');

    // A finance reviewer of tenant-b, with a passkey and a session of their own, sees nothing of tenant default.
    expect((await harness.admin('POST', '/users', { sub: 'otto', roles: ['reviewer:finance'], tenant: 'tenant-b' })).status).toBe(201);
    const code = (await harness.admin('POST', '/users/otto/enrollments', { tenant: 'tenant-b' })).body.enrollment_code;
    const phone = createSoftAuthenticator({ origin: harness.issuer, rpId: new URL(harness.issuer).hostname });
    const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: code }, headers: { origin: harness.issuer } });
    const enrolled = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: code, response: await phone.register(options.body) }, headers: { origin: harness.issuer } });
    const otto: EnrolledUser = { sub: 'otto', authenticator: phone, cookie: (enrolled.headers.get('set-cookie') ?? '').split(';')[0]! };
    await harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance'] });
    expect([await inbox(otto), await inbox(reviewer)]).toEqual([[], [id]]);
    expect((await device(harness, otto, 'GET', `/requests/${id}`)).status).toBe(404);
  });

  it('records both of two approvals fired together and approves exactly once', async () => {
    await start();
    const id = await ask();
    const [customerView, reviewerView] = await Promise.all([device(harness, customer, 'GET', `/requests/${id}`), device(harness, reviewer, 'GET', `/requests/${id}`)]);
    const [customerSays, reviewerSays] = await Promise.all([customer.authenticator.authenticate(customerView.body.options.approve), reviewer.authenticator.authenticate(reviewerView.body.options.approve)]);
    const results = await Promise.all([device(harness, customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: customerSays }), device(harness, reviewer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: reviewerSays })]);
    expect(results.map((result) => result.status)).toEqual([200, 200]);
    expect(await stateOf(id)).toBe('approved');
    expect(audit.filter((event) => event.type === 'approved')).toHaveLength(1);
    expect(audit.filter((event) => event.type === 'party_approved')).toHaveLength(1);
  });

  it('runs the shipped high tier end to end: customer with number matching, then a finance reviewer', async () => {
    await start({});
    const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_big', 2_500_000) });
    expect(asked.body).toMatchObject({ expires_in: 600, binding_code: expect.stringMatching(/^[1-9][0-9]$/) });
    expect((await answer(harness, customer, asked.body.auth_req_id, { decision: 'approve', code: asked.body.binding_code })).body.request.state).toBe('pending');
    expect((await answer(harness, reviewer, asked.body.auth_req_id, { decision: 'approve' })).body.request.state).toBe('approved');
    expect((await pollToken(harness, client, asked.body.auth_req_id)).body.expires_in).toBe(120);
  });
  describe('a request nobody can approve', () => {
    /** Asks, watching every store write and every push of this one request. */
    async function askWatched(transactionId: string) {
      const pushed: string[] = [];
      const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
      harness.deps.push.notifyUser = async (input) => {
        pushed.push(input.sub);
        return notifyUser(input);
      };
      const watch = recordWrites(harness.deps.store);
      try {
        const reply = await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay(transactionId) });
        // Whatever the request started in the background (a push) has run.
        await harness.deps.background.drain();
        return { reply, writes: [...watch.writes], pushed };
      } finally {
        watch.stop();
      }
    }

    /** Nothing of the refused request is anywhere: no record, no transaction, no place in a window, no queue, no push; only its audit (and the call counted against the client's rate limit). */
    async function expectNothingStored(transactionId: string, refused: Awaited<ReturnType<typeof askWatched>>) {
      expect(refused.writes.filter((write) => !/ audit/.test(write))).toEqual([`rateLimit ${keys.rate('bcAuthorize', `default:${client.client_id}`)}`]);
      expect(refused.pushed).toEqual([]);
      const now = harness.clock.now();
      expect(await harness.store.get(keys.transaction('default', client.client_id, transactionId))).toBeNull();
      expect(await harness.store.sortedWindowMembers(keys.pendingRequests('default', customer.sub), now, 0)).toEqual([]);
      const inWindow = (key: string) => harness.store.windowAdd(key, { nowMs: now, windowMs: 3_600_000, member: '-', maxCount: 0 });
      expect(await inWindow(keys.window('default', 'velocity-user', customer.sub))).toMatchObject({ count: 0, totals: {} });
      expect(await inWindow(keys.window('default', 'velocity-client', client.client_id))).toMatchObject({ count: 0, totals: {} });
      expect(await harness.store.setMembers(keys.roleRequests('default', 'reviewer:finance'))).toEqual([]);
      expect(await harness.store.sortedRangeByScore(keys.deadlines(), Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect([await inbox(customer), await inbox(reviewer)]).toEqual([[], []]);
      expect(audit.filter((event) => event.type !== 'roles_changed').map((event) => [event.type, event.reason, event.client_id])).toEqual([['refused', 'no_approver', client.client_id]]);
    }

    it('refuses with 400 no_approver, naming the role, when nobody in the tenant holds it: nothing stored, counted or pushed', async () => {
      await start();
      await harness.admin('PUT', '/users/rita/roles', { roles: [] });
      // A finance reviewer of another tenant does not count.
      await harness.admin('POST', '/users', { sub: 'tina', roles: ['reviewer:finance'], tenant: 'tenant-b' });
      const refused = await askWatched('txn_1');
      expect([refused.reply.status, refused.reply.body.error]).toEqual([400, 'no_approver']);
      expect(refused.reply.body.error_description).toBe("No one in this tenant but the user holds the role 'reviewer:finance', which this request needs (no one reviews their own request). An operator must assign it first.");
      await expectNothingStored('txn_1', refused);

      // Once someone holds the role, the same action is taken.
      await harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance'] });
      expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1') })).status).toBe(200);
    });

    it('counts no role held only by the user the request is for: they may not review their own request', async () => {
      await start();
      await harness.admin('PUT', '/users/rita/roles', { roles: [] });
      await harness.admin('PUT', '/users/customer_1/roles', { roles: ['reviewer:finance'] });
      const refused = await askWatched('txn_1');
      expect([refused.reply.status, refused.reply.body.error]).toEqual([400, 'no_approver']);
      expect(refused.reply.body.error_description).toContain("No one in this tenant but the user holds the role 'reviewer:finance'");
      await expectNothingStored('txn_1', refused);
    });

    it('refuses before the limits are asked: with the user’s pending limit full, the answer is still no_approver', async () => {
      await start({
        POLICY_FILE: testPolicy((policy) => {
          onlyTier(policy, { name: 'dual', approvers: ['customer', { role: 'reviewer:finance' }], number_matching: false });
          policy.limits.max_pending_per_user = 1;
        }),
      });
      const first = await ask('txn_1');
      await harness.admin('PUT', '/users/rita/roles', { roles: [] });
      expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2') })).body.error).toBe('no_approver');
      expect(await harness.store.sortedWindowMembers(keys.pendingRequests('default', customer.sub), harness.clock.now(), 0)).toEqual([first]);
    });

    it('names the role nobody holds among several, and refuses two roles that only one person holds (one person fills one role)', async () => {
      await start({ POLICY_FILE: twoReviewers() });
      const risk = await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1') });
      expect([risk.status, risk.body.error]).toEqual([400, 'no_approver']);
      expect(risk.body.error_description).toContain("holds the role 'reviewer:risk', which");
      expect(risk.body.error_description).not.toContain('reviewer:finance');

      await harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance', 'reviewer:risk'] });
      const one = await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1') });
      expect([one.status, one.body.error]).toEqual([400, 'no_approver']);
      expect(one.body.error_description).toBe("This request needs 2 different reviewers ('reviewer:finance' and 'reviewer:risk'); fewer people hold those roles in this tenant, the user aside. An operator must assign them first.");

      await harness.admin('POST', '/users', { sub: 'rob', roles: ['reviewer:finance'] });
      expect((await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1') })).status).toBe(200);
    });
  });

  describe('a request waiting for a reviewer', () => {
    const basic = () => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(client.client_id)}:${encodeURIComponent(client.client_secret)}`).toString('base64')}` });

    it('says in /token’s authorization_pending and in the client’s view which parties are still needed, before and after the customer approves', async () => {
      await start();
      const id = await ask();
      const agent = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, clientSecret: client.client_secret, fetch: harness.fetch });
      const polled = await pollToken(harness, client, id);
      expect([polled.body.error, polled.body.error_description]).toEqual(['authorization_pending', "Waiting for the approval of the user and a reviewer with the role 'reviewer:finance'."]);
      const before = await harness.call('GET', `/requests/${id}`, { headers: basic() });
      expect(before.body).toEqual({ auth_req_id: id, state: 'pending', expires_at: expect.any(String), outcome: null, awaiting: ['customer', 'role:reviewer:finance'] });

      expect((await answer(harness, customer, id, { decision: 'approve' })).body.request.state).toBe('pending');
      harness.clock.advance(5);
      const waiting = await pollToken(harness, client, id);
      expect([waiting.body.error, waiting.body.error_description]).toEqual(['authorization_pending', "The user has approved; still waiting for the approval of a reviewer with the role 'reviewer:finance'."]);
      expect((await harness.call('GET', `/requests/${id}`, { headers: basic() })).body.awaiting).toEqual(['role:reviewer:finance']);
      expect(await agent.getRequest(id)).toMatchObject({ state: 'pending', awaiting: ['role:reviewer:finance'] });

      expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
      expect(await agent.getRequest(id)).toMatchObject({ state: 'approved', awaiting: [] });
    });

    it('says who approved and who is still needed when one of two reviewers has approved', async () => {
      await start({ POLICY_FILE: twoReviewers() });
      await harness.admin('POST', '/users', { sub: 'rob', roles: ['reviewer:risk'] });
      const id = await ask();
      expect((await answer(harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('pending');
      const waiting = await pollToken(harness, client, id);
      expect(waiting.body.error_description).toBe("A reviewer with the role 'reviewer:finance' has approved; still waiting for the approval of a reviewer with the role 'reviewer:risk'.");
      expect((await harness.call('GET', `/requests/${id}`, { headers: basic() })).body.awaiting).toEqual(['role:reviewer:risk']);
    });
  });
});
