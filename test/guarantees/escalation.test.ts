import { createAgentClient } from '@countersign/agent';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { startNotificationReceiver } from '../support/notification-receiver.ts';
import { bcAuthorize, device, enrollWithRoles, onlyTier, pay, pollToken, testPolicy } from './policy-support.ts';

/**
 * Escalation with a response window (docs/escalation.md): a tier says how long its approver has and
 * who is asked next. On the injected clock: a window that passes hands the request to the next role
 * (pushed to its holders, audited `escalated`), and the earlier holder can no longer approve; the
 * last window passing expires it loudly (`escalation_exhausted`); the agent and the devices see who
 * holds it. See docs/escalation.md.
 */

type Client = { client_id: string; client_secret: string };

/** The only tier: the customer has 60 s, then ops until 180 s, then a manager until the request's 600 s. */
function chainPolicy(
  chain: unknown[] = [
    { after_seconds: 60, to: { role: 'ops' } },
    { after_seconds: 180, to: { role: 'manager' } },
  ],
  approvers: unknown[] = ['customer'],
) {
  return testPolicy((policy) => {
    onlyTier(policy, { name: 'watched', approvers, number_matching: false });
    Object.assign(policy.tiers[0], { request_expiry_seconds: 600, escalation: chain });
  });
}

describe.each(['memory', 'redis'] as const)('escalation (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let olga: EnrolledUser;
  let max: EnrolledUser;
  let client: Client;
  /** Every push asked of the notifier: to whom, of what kind, saying what. */
  let pushes: { sub: string; kind: string; summary: string }[];

  async function start(policyFile = chainPolicy()) {
    harness = await createHarness({ store: storeKind, env: { POLICY_FILE: policyFile } });
    customer = await harness.enrollUser('customer_1');
    olga = await enrollWithRoles(harness, 'olga', ['ops']);
    max = await enrollWithRoles(harness, 'max', ['manager']);
    client = await harness.createClient('Refund agent');
    pushes = [];
    const notifyUser = harness.deps.push.notifyUser.bind(harness.deps.push);
    harness.deps.push.notifyUser = async (input) => {
      pushes.push({ sub: input.sub, kind: input.kind ?? 'approval_request', summary: input.summary });
      return notifyUser(input);
    };
  }
  afterEach(() => harness.close());

  const ask = async (params: { requested_expiry?: number } = {}) => {
    const asked = await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_1'), ...params });
    expect(asked.status).toBe(200);
    await harness.drain();
    return asked.body.auth_req_id as string;
  };
  /** Moves the clock, runs one sweep and what it enqueued; answers how many due entries it handled. */
  const pass = async (seconds: number) => {
    harness.clock.advance(seconds);
    const handled = await harness.deps.sweeper.sweep();
    await harness.drain();
    return handled;
  };
  const clientView = async (id: string) => (await harness.call('GET', `/requests/${id}`, { headers: { authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}` } })).body;
  const inbox = async (user: EnrolledUser) => ((await device(harness, user, 'GET', '/requests')).body.requests as { auth_req_id: string }[]).map((request) => request.auth_req_id);
  const auditOf = async (id: string) => (await harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; reason?: string; sub?: string; detail?: Record<string, unknown> }[];
  /** The gate's steps, in order: what was proposed, pushed (to whom, for which step), escalated, decided, expired. */
  const steps = async (id: string) =>
    (await auditOf(id))
      .filter((event) => ['proposed', 'pushed', 'escalated', 'approved', 'denied', 'expired'].includes(event.type))
      .map((event) => {
        if (event.type === 'pushed') return `pushed ${event.sub}${event.detail?.kind ? ` ${String(event.detail.kind)}` : ''}${event.detail?.step ? ` step ${String(event.detail.step)}` : ''}`;
        if (event.type === 'escalated') return `escalated ${String(event.detail?.from)} → ${String(event.detail?.to)} step ${String(event.detail?.step)}`;
        return event.reason ? `${event.type} ${event.reason}` : event.type;
      });
  /** A decision posted with a prompt taken earlier (before the clock moved on). */
  const post = async (user: EnrolledUser, id: string, prompt: unknown) => device(harness, user, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await user.authenticator.authenticate(prompt as never) });

  it('asks the next role when the window passes: pushed to it, in its inbox, and the customer can no longer approve alone', async () => {
    await start();
    const id = await ask();
    const stored = (await harness.admin('GET', `/requests/${id}`)).body.request;
    // The chain as fixed on the request at creation: seconds after it was made (times as the admin API writes them).
    const created = Date.parse(stored.created_at as string);
    expect(stored.created_at).toBe(new Date(created).toISOString());
    expect(stored.escalation).toEqual([
      { at: new Date(created + 60_000).toISOString(), party: 'role:ops' },
      { at: new Date(created + 180_000).toISOString(), party: 'role:manager' },
    ]);
    expect(await clientView(id)).toMatchObject({ state: 'pending', awaiting: ['customer'], escalation: { step: 0, steps: 2, holder: ['customer'], next: 'role:ops' } });
    expect(await inbox(olga)).toEqual([]);
    // The customer opens it inside the window, and answers only after it passed.
    const customerView = await device(harness, customer, 'GET', `/requests/${id}`);
    expect(customerView.body.request.escalation).toMatchObject({ step: 0, holder: ['customer'], next: 'role:ops' });

    expect(await pass(59)).toBe(0);
    expect(pushes.map((push) => push.sub)).toEqual(['customer_1']);
    expect(await pass(1)).toBeGreaterThanOrEqual(1);

    expect(pushes.map((push) => [push.sub, push.summary])).toEqual([
      ['customer_1', 'Refund agent: EUR 490.00 to ACME Ltd'],
      ['olga', 'Escalated to you. Refund agent: EUR 490.00 to ACME Ltd'],
    ]);
    expect([await inbox(olga), await inbox(max)]).toEqual([[id], []]);
    const olgaView = await device(harness, olga, 'GET', `/requests/${id}`);
    expect(olgaView.body.request).toMatchObject({ escalation: { step: 1, steps: 2, holder: ['role:ops'], next: 'role:manager' }, approvals: [{ party: 'role:ops', status: 'waiting' }], viewer: { party: 'role:ops', can_decide: true } });
    expect(olgaView.body.request.escalation.next_at).toBe(new Date(created + 180_000).toISOString());

    // The customer's approval, signed inside the window, no longer approves anything.
    const late = await post(customer, id, customerView.body.options.approve);
    expect([late.status, late.body.error]).toEqual([409, 'party_escalated']);
    const again = await device(harness, customer, 'GET', `/requests/${id}`);
    expect([again.body.request.state, again.body.request.viewer.party, again.body.options.approve]).toEqual(['pending', null, null]);
    // The agent sees who holds it now, in the view and in the pending answer.
    expect(await clientView(id)).toMatchObject({ state: 'pending', awaiting: ['role:ops'], escalation: { step: 1, holder: ['role:ops'], next: 'role:manager' } });
    // And the operator, in the stored request and its display.
    const operator = (await harness.admin('GET', `/requests/${id}`)).body;
    expect([operator.request.escalation_step, operator.request.parties, operator.request.held_before]).toEqual([1, ['role:ops'], ['customer']]);
    expect(operator.display.escalation).toMatchObject({ step: 1, holder: ['role:ops'], next: 'role:manager' });
    const pending = await pollToken(harness, client, id);
    expect([pending.body.error, pending.body.error_description]).toEqual(['authorization_pending', "Escalated (step 1 of 2): waiting for the approval of a reviewer with the role 'ops'."]);
    const agent = createAgentClient({ issuer: harness.issuer, clientId: client.client_id, clientSecret: client.client_secret, fetch: harness.fetch });
    expect(await agent.getRequest(id)).toMatchObject({ awaiting: ['role:ops'], escalation: { step: 1, steps: 2, holder: ['role:ops'], next: 'role:manager' } });

    // The new holder decides alone.
    expect((await post(olga, id, olgaView.body.options.approve)).body.request.state).toBe('approved');
    harness.clock.advance(5);
    expect((await pollToken(harness, client, id)).status).toBe(200);
    expect(await steps(id)).toEqual(['proposed', 'pushed customer_1', 'escalated customer → role:ops step 1', 'pushed olga step 1', 'approved']);
    expect((await auditOf(id)).find((event) => event.type === 'refused')).toMatchObject({ reason: 'party_escalated', sub: 'customer_1' });
    // Approved: nothing escalates any more.
    expect(await pass(200)).toBe(0);
    expect(pushes.filter((push) => push.sub === 'max')).toEqual([]);
  });

  it('expires loudly with escalation_exhausted once the last window passes too, every step audited in order', async () => {
    await start();
    const id = await ask();
    await pass(60);
    const olgaView = await device(harness, olga, 'GET', `/requests/${id}`);
    await pass(120);
    // The manager holds it now; ops, whose window passed, cannot approve any more either.
    expect([await inbox(olga), await inbox(max)]).toEqual([[], [id]]);
    const late = await post(olga, id, olgaView.body.options.approve);
    expect([late.status, late.body.error]).toEqual([409, 'party_escalated']);
    expect(await clientView(id)).toMatchObject({ awaiting: ['role:manager'], escalation: { step: 2, steps: 2, holder: ['role:manager'], next: null, next_at: null } });

    expect(await pass(419)).toBe(0);
    expect(await pass(1)).toBe(1);
    const polled = await pollToken(harness, client, id);
    expect([polled.status, polled.body.error]).toEqual([400, 'expired_token']);
    expect(await clientView(id)).toMatchObject({ state: 'expired', awaiting: [], expiry_reason: 'escalation_exhausted', escalation: { step: 2, holder: [], next: null } });
    expect((await harness.admin('GET', `/requests/${id}`)).body.request).toMatchObject({ state: 'expired', escalation_step: 2, expiry_reason: 'escalation_exhausted' });
    expect(await steps(id)).toEqual(['proposed', 'pushed customer_1', 'escalated customer → role:ops step 1', 'pushed olga step 1', 'escalated role:ops → role:manager step 2', 'pushed max step 2', 'expired escalation_exhausted', 'pushed customer_1 request_expired']);
    expect(pushes.map((push) => [push.sub, push.kind])).toEqual([
      ['customer_1', 'approval_request'],
      ['olga', 'approval_request'],
      ['max', 'approval_request'],
      ['customer_1', 'request_expired'],
    ]);
  });

  it('pings a ping client when the chain runs out, as for any expiry, once', async () => {
    await start();
    const receiver = await startNotificationReceiver();
    try {
      const registered = await harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
      const agent = createAgentClient({ issuer: harness.issuer, clientId: registered.body.client_id, clientSecret: registered.body.client_secret, fetch: harness.fetch });
      const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: pay('txn_ping'), client_notification_token: 'cnt_escalation_0123456789abcdef' });
      await harness.drain();
      await pass(60);
      await pass(120);
      expect(receiver.received).toHaveLength(0);
      await pass(420);
      expect(receiver.received.map((ping) => ping.json)).toEqual([{ auth_req_id: asked.auth_req_id }]);
      expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
      expect(await agent.getRequest(asked.auth_req_id)).toMatchObject({ state: 'expired', expiry_reason: 'escalation_exhausted' });
      await pass(1);
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('works as before when the approver decides inside the window: nothing escalates after', async () => {
    await start();
    const id = await ask();
    await pass(30);
    expect((await harness.decide(customer, id, 'approve')).body.request.state).toBe('approved');
    expect(await pass(30)).toBe(0);
    expect(await pass(600)).toBe(1); // the approval runs out unredeemed, as any would
    expect(await steps(id)).toEqual(['proposed', 'pushed customer_1', 'approved', 'expired', 'pushed customer_1 request_expired']);
    expect(pushes.map((push) => push.sub)).not.toContain('olga');
  });

  it('lets a shorter requested_expiry end the request first: no step after it, and no exhaustion', async () => {
    await start();
    const short = await ask({ requested_expiry: 45 });
    expect((await clientView(short)).escalation).toMatchObject({ step: 0, next: null, next_at: null });
    expect(await pass(45)).toBe(1);
    const shortView = await clientView(short);
    expect([shortView.state, shortView.expiry_reason]).toEqual(['expired', undefined]);
    expect(await steps(short)).toEqual(['proposed', 'pushed customer_1', 'expired', 'pushed customer_1 request_expired']);

    // Long enough for the first step, not for the second: it expires at its own deadline, not exhausted.
    const middle = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_2'), requested_expiry: 90 })).body.auth_req_id as string;
    await harness.drain();
    await pass(60);
    expect((await clientView(middle)).escalation).toMatchObject({ step: 1, holder: ['role:ops'], next: null });
    await pass(30);
    const middleView = await clientView(middle);
    expect([middleView.state, middleView.expiry_reason]).toEqual(['expired', undefined]);
    expect((await steps(middle)).filter((step) => step.startsWith('escalated') || step.startsWith('expired'))).toEqual(['escalated customer → role:ops step 1', 'expired']);
  });

  it('keeps the chain the request was made with when the tenant’s policy changes after (admin API)', async () => {
    await start();
    const id = await ask();
    const later = JSON.parse(readFileSync(chainPolicy([{ after_seconds: 10, to: { role: 'manager' } }]), 'utf8'));
    const changed = await harness.admin('PUT', '/tenants/default/policy', { policy: later, actor: 'ops-lead' });
    expect(changed.status).toBe(200);
    await pass(10);
    expect((await clientView(id)).escalation).toMatchObject({ step: 0, holder: ['customer'], next: 'role:ops' });
    await pass(50);
    expect((await clientView(id)).escalation).toMatchObject({ step: 1, holder: ['role:ops'] });
    // A request made after the change gets the new chain.
    const after = (await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_after') })).body.auth_req_id as string;
    await harness.drain();
    expect((await clientView(after)).escalation).toMatchObject({ step: 0, steps: 1, next: 'role:manager' });
    await pass(10);
    expect((await clientView(after)).escalation).toMatchObject({ step: 1, holder: ['role:manager'] });
  });

  it('hands the request on once when two instances sweep at the same moment', async () => {
    await start();
    const other = await harness.instance();
    try {
      const id = await ask();
      harness.clock.advance(60);
      await Promise.all([harness.deps.sweeper.sweep(), other.deps.sweeper.sweep()]);
      await Promise.all([harness.drain(), other.drain()]);
      expect((await steps(id)).filter((step) => step.startsWith('escalated'))).toEqual(['escalated customer → role:ops step 1']);
      expect((await clientView(id)).escalation).toMatchObject({ step: 1 });
    } finally {
      await other.close();
    }
  });

  it('pushes a holder of both roles again when the request reaches their second role: each step has its own mark', async () => {
    await start(chainPolicy([{ after_seconds: 60, to: { role: 'manager' } }], [{ role: 'ops' }]));
    await harness.admin('PUT', '/users/olga/roles', { roles: ['ops', 'manager'] });
    const id = await ask();
    expect(pushes.map((push) => push.sub)).toEqual(['olga']);
    await pass(60);
    expect(pushes.map((push) => push.sub).sort()).toEqual(['max', 'olga', 'olga']);
    expect((await steps(id)).filter((step) => step.startsWith('pushed olga'))).toEqual(['pushed olga', 'pushed olga step 1']);
  });

  it('refuses a request whose chain names a role nobody but the user holds, before anything is stored', async () => {
    await start(chainPolicy([{ after_seconds: 60, to: { role: 'auditor' } }]));
    const refused = await bcAuthorize(harness, client, { login_hint: customer.sub, details: pay('txn_9') });
    expect([refused.status, refused.body.error]).toEqual([400, 'no_approver']);
  });
});
