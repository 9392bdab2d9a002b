import type { AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { harnessClient } from './support/harness-client.ts';
import { payment } from './support/payment.ts';
import { createSoftAuthenticator } from './support/soft-authenticator.ts';

/** EUR 500.00: below the default policy's EUR `elevated` threshold (1 000.00), above the lowered one (400.00). */
const EUR_500 = 50_000;
const LOWERED = 40_000;

/** A user of `tenant` with an enrolled software passkey, through the real admin and device APIs. */
async function enrollIn(harness: Harness, tenant: string, sub: string): Promise<EnrolledUser> {
  expect((await harness.admin('POST', '/users', { sub, tenant })).status).toBe(201);
  const enrollment = await harness.admin('POST', `/users/${sub}/enrollments`, { tenant });
  const authenticator = createSoftAuthenticator({ origin: harness.issuer, rpId: new URL(harness.issuer).hostname });
  const headers = { origin: harness.issuer };
  const options = await harness.call('POST', '/api/device/enroll/options', { body: { enrollment_code: enrollment.body.enrollment_code }, headers });
  const response = await authenticator.register(options.body);
  const verify = await harness.call('POST', '/api/device/enroll/verify', { body: { enrollment_code: enrollment.body.enrollment_code, response, device_name: 'Phone' }, headers });
  expect(verify.status).toBe(200);
  return { sub, authenticator, cookie: (verify.headers.get('set-cookie') ?? '').split(';')[0]! };
}

/** An agent registered in `tenant`. */
async function agentIn(harness: Harness, tenant: string): Promise<AgentClient> {
  const created = await harness.admin('POST', '/clients', { name: `Agent of ${tenant}`, tenant });
  expect(created.status).toBe(201);
  return harnessClient(harness, created.body.client_id, created.body.client_secret);
}

/** The default policy with the EUR `elevated` threshold of payments at `fromMinor`. */
function withEurElevatedAt(policy: any, fromMinor: number): any {
  const copy = structuredClone(policy);
  copy.types.payment.amount_tiers.EUR[0].from_minor = fromMinor;
  return copy;
}

describe.each(['redis', 'memory'] as const)('per-tenant policy (%s store)', (storeKind) => {
  let harness: Harness;
  let acme: { user: EnrolledUser; agent: AgentClient };
  let other: { user: EnrolledUser; agent: AgentClient };

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    acme = { user: await enrollIn(harness, 'acme', 'ana'), agent: await agentIn(harness, 'acme') };
    other = { user: await enrollIn(harness, 'globex', 'bo'), agent: await agentIn(harness, 'globex') };
  });
  afterEach(() => harness.close());

  const policyOf = (tenant: string) => harness.admin('GET', `/tenants/${tenant}/policy`);
  const put = (tenant: string, body: unknown, headers: Record<string, string> = {}) => harness.call('PUT', `/api/admin/tenants/${tenant}/policy`, { body, headers: { authorization: `Bearer ${harness.adminToken}`, ...headers } });
  const stored = async (tenant: string, authReqId: string) => (await harness.admin('GET', `/requests/${authReqId}?tenant=${tenant}`)).body.request;
  const policyEvents = async (tenant: string) => (await harness.admin('GET', `/audit?tenant=${tenant}&type=policy_changed`)).body.events;
  const ask = (party: { agent: AgentClient; user: EnrolledUser }, transactionId: string) => party.agent.requestApproval({ login_hint: party.user.sub, authorization_details: payment({ transaction_id: transactionId, amount_minor: EUR_500 }) });

  it('starts every tenant on the server default, as revision 0', async () => {
    const { status, body, headers } = await harness.call('GET', '/api/admin/tenants/acme/policy', { headers: { authorization: `Bearer ${harness.adminToken}` } });
    expect(status).toBe(200);
    expect(headers.get('etag')).toBe('"0"');
    expect(body).toStrictEqual({ tenant: 'acme', revision: 0, policy: harness.deps.policy, source: 'default' });
  });

  it('audits a change with its actor and diff; a request made before keeps its tier, one made after uses the new tiers', async () => {
    const before = await ask(acme, 'txn_before');
    expect((await stored('acme', before.auth_req_id)).tier).toBe('standard');

    const startedAt = harness.clock.now();
    const changed = await put('acme', { policy: withEurElevatedAt(harness.deps.policy, LOWERED), expected_revision: 0 }, { 'x-countersign-actor': 'ops@example.com' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"1"');
    expect(changed.body).toMatchObject({ tenant: 'acme', revision: 1, source: 'tenant', updated_by: 'ops@example.com' });
    expect(Date.parse(changed.body.updated_at)).toBeGreaterThanOrEqual(startedAt);
    expect(Date.parse(changed.body.updated_at)).toBeLessThanOrEqual(harness.clock.now());
    expect(changed.body.policy.types.payment.amount_tiers.EUR[0]).toStrictEqual({ from_minor: LOWERED, tier: 'elevated' });
    expect((await policyOf('acme')).body).toStrictEqual(changed.body);

    const events = await policyEvents('acme');
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'policy_changed',
      tenant: 'acme',
      channel: 'admin',
      detail: { actor: 'ops@example.com', from_revision: 0, to_revision: 1, source: 'tenant', diff: [{ path: '/types/payment/amount_tiers/EUR/0/from_minor', from: 100_000, to: LOWERED }] },
    });

    const after = await ask(acme, 'txn_after');
    expect(after.binding_code).toMatch(/^\d{2}$/);
    expect(await stored('acme', after.auth_req_id)).toMatchObject({ tier: 'elevated', policy_revision: 1, token_lifetime: 300 });

    // The earlier request is still standard: the customer alone, no number matching, the server's token lifetime.
    const earlier = await stored('acme', before.auth_req_id);
    expect(earlier).toMatchObject({ tier: 'standard', parties: ['customer'] });
    expect(earlier.policy_revision).toBeUndefined();
    expect(earlier.code_candidates).toBeUndefined();
    await harness.drain();
    const decided = await harness.decide(acme.user, before.auth_req_id, 'approve');
    expect([decided.status, decided.body.request.state]).toEqual([200, 'approved']);
    const polled = await acme.agent.pollToken(before.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    expect(polled.token.expires_in).toBe(600);
    const details = payment({ transaction_id: 'txn_before', amount_minor: EUR_500 });
    expect((await acme.agent.redeem(polled.token.access_token, details)).status).toBe('redeemed');
  });

  it('leaves another tenant on its own policy', async () => {
    expect((await put('acme', { policy: withEurElevatedAt(harness.deps.policy, LOWERED) })).status).toBe(200);
    const asked = await ask(other, 'txn_other');
    expect(asked.binding_code).toBeUndefined();
    expect((await stored('globex', asked.auth_req_id)).tier).toBe('standard');
    expect((await policyOf('globex')).body).toMatchObject({ revision: 0, source: 'default' });
    expect(await policyEvents('globex')).toStrictEqual([]);
  });

  it('refuses an invalid policy with each problem at its JSON pointer, and changes nothing', async () => {
    const policy = withEurElevatedAt(harness.deps.policy, LOWERED);
    policy.tiers[1].approvers = [];
    policy.types.payment.amount_tiers.EUR[1].tier = 'urgent';
    policy.limits.surprise = true;
    const refused = await put('acme', { policy });
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe('invalid_policy');
    expect(refused.body.problems).toEqual(
      expect.arrayContaining([
        { path: '/tiers/1/approvers', message: expect.any(String) },
        { path: '/limits/surprise', message: 'not a member of a policy here' },
      ]),
    );
    expect((await put('acme', { policy: withEurElevatedAt(harness.deps.policy, 20_000).tiers })).body.problems[0]).toMatchObject({ path: '' });
    // The schema's own checks across members are listed too, once the shape is right.
    const unknownTier = withEurElevatedAt(harness.deps.policy, LOWERED);
    unknownTier.types.payment.amount_tiers.EUR[1].tier = 'urgent';
    expect((await put('acme', { policy: unknownTier })).body.problems).toStrictEqual([{ path: '/types/payment/amount_tiers/EUR/1/tier', message: 'no tier named urgent' }]);

    expect((await policyOf('acme')).body).toMatchObject({ revision: 0, source: 'default' });
    expect(await policyEvents('acme')).toStrictEqual([]);
    expect((await stored('acme', (await ask(acme, 'txn_1')).auth_req_id)).tier).toBe('standard');
  });

  it('refuses an escalation step this server would never reach: past REQUEST_EXPIRY_MAX, which caps every request', async () => {
    expect(harness.deps.config.requestExpiryMax).toBe(600);
    const chained = (afterSeconds: number) => {
      const policy = structuredClone(harness.deps.policy) as any;
      Object.assign(policy.tiers[1], { request_expiry_seconds: 3600, escalation: [{ after_seconds: afterSeconds, to: { role: 'ops' } }] });
      return policy;
    };
    // The tier allows an hour, the server 600 s: a request of it expires at 600 s, before the step, and nobody is ever asked.
    const refused = await put('acme', { policy: chained(900) });
    expect([refused.status, refused.body.error]).toEqual([400, 'invalid_policy']);
    expect(refused.body.problems).toStrictEqual([{ path: '/tiers/1/escalation/0/after_seconds', message: 'must be less than 600 s, the longest a request lives on this server (REQUEST_EXPIRY_MAX): no request would last until this step' }]);
    expect((await policyOf('acme')).body.revision).toBe(0);
    expect(await policyEvents('acme')).toStrictEqual([]);
    expect((await put('acme', { policy: chained(599) })).status).toBe(200);
  });

  it('refuses a change made against a stale revision with 409 revision_conflict', async () => {
    expect((await put('acme', { policy: withEurElevatedAt(harness.deps.policy, LOWERED), expected_revision: 0 })).status).toBe(200);
    const stale = await put('acme', { policy: withEurElevatedAt(harness.deps.policy, 20_000), expected_revision: 0 });
    expect([stale.status, stale.body.error, stale.body.revision]).toEqual([409, 'revision_conflict', 1]);
    const staleHeader = await put('acme', { policy: withEurElevatedAt(harness.deps.policy, 20_000) }, { 'if-match': '"0"' });
    expect([staleHeader.status, staleHeader.body.error]).toEqual([409, 'revision_conflict']);
    expect((await policyOf('acme')).body.policy.types.payment.amount_tiers.EUR[0].from_minor).toBe(LOWERED);
    expect(await policyEvents('acme')).toHaveLength(1);

    // Of two changes made at once against the same revision, exactly one is stored.
    const racing = await Promise.all([30_000, 35_000].map((from) => put('acme', { policy: withEurElevatedAt(harness.deps.policy, from), expected_revision: 1 })));
    expect(racing.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect((await policyOf('acme')).body.revision).toBe(2);
    expect(await policyEvents('acme')).toHaveLength(2);
  });

  it('goes back to the default with DELETE, audited, as a new revision', async () => {
    expect((await put('acme', { policy: withEurElevatedAt(harness.deps.policy, LOWERED) })).status).toBe(200);
    const reset = await harness.call('DELETE', '/api/admin/tenants/acme/policy', { headers: { authorization: `Bearer ${harness.adminToken}`, 'if-match': '"1"', 'x-countersign-actor': 'ana.ops' } });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ revision: 2, source: 'default', updated_by: 'ana.ops', policy: harness.deps.policy });
    const events = await policyEvents('acme');
    expect(events.map((event: any) => [event.detail.from_revision, event.detail.to_revision, event.detail.source, event.detail.actor])).toEqual([
      [0, 1, 'tenant', 'admin'],
      [1, 2, 'default', 'ana.ops'],
    ]);
    expect(events[1].detail.diff).toStrictEqual([{ path: '/types/payment/amount_tiers/EUR/0/from_minor', from: LOWERED, to: 100_000 }]);
    expect((await stored('acme', (await ask(acme, 'txn_reset')).auth_req_id)).tier).toBe('standard');
    // The same policy again: nothing to change, nothing audited.
    const again = withEurElevatedAt(harness.deps.policy, LOWERED);
    expect((await put('acme', { policy: again })).body.revision).toBe(3);
    expect((await put('acme', { policy: again })).body.revision).toBe(3);
    expect(await policyEvents('acme')).toHaveLength(3);
    expect((await harness.admin('DELETE', '/tenants/acme/policy')).body.revision).toBe(4);
    // A tenant already on the default: nothing to change, nothing audited.
    expect((await harness.admin('DELETE', '/tenants/acme/policy')).body.revision).toBe(4);
    expect(await policyEvents('acme')).toHaveLength(4);
    // An earlier revision stays readable.
    expect((await harness.admin('GET', '/tenants/acme/policy?revision=1')).body).toMatchObject({ revision: 1, source: 'tenant', updated_by: 'admin' });
  });

  it('applies a change made through another instance to the next request here', async () => {
    const second = await harness.instance();
    try {
      const secondAgent = harnessClient(
        second,
        ...(await (async () => {
          const created = await second.admin('POST', '/clients', { name: 'Second', tenant: 'acme' });
          return [created.body.client_id, created.body.client_secret] as const;
        })()),
      );
      const first = await secondAgent.requestApproval({ login_hint: 'ana', authorization_details: payment({ transaction_id: 'txn_s1', amount_minor: EUR_500 }) });
      expect((await stored('acme', first.auth_req_id)).tier).toBe('standard');
      expect((await put('acme', { policy: withEurElevatedAt(harness.deps.policy, LOWERED) })).status).toBe(200);
      const next = await secondAgent.requestApproval({ login_hint: 'ana', authorization_details: payment({ transaction_id: 'txn_s2', amount_minor: EUR_500 }) });
      expect(await stored('acme', next.auth_req_id)).toMatchObject({ tier: 'elevated', policy_revision: 1 });
    } finally {
      await second.close();
    }
  });

  it('reads the reviewers of the roles the current revision asks for, not of those of the revision it guessed', async () => {
    const reviewedBy = (role: string) => {
      const policy = structuredClone(harness.deps.policy) as any;
      policy.tiers[0].approvers = ['customer', { role }];
      return policy;
    };
    expect((await harness.admin('POST', '/users', { sub: 'carl', tenant: 'acme', roles: ['reviewer:finance'] })).status).toBe(201);
    expect((await put('acme', { policy: reviewedBy('reviewer:finance') })).status).toBe(200);
    const first = await ask(acme, 'txn_r1');
    expect(await stored('acme', first.auth_req_id)).toMatchObject({ policy_revision: 1, parties: ['customer', 'role:reviewer:finance'] });
    // Changed through another instance: this one still guesses revision 1, whose role carl holds.
    const second = await harness.instance();
    try {
      const changed = await second.call('PUT', '/api/admin/tenants/acme/policy', { body: { policy: reviewedBy('reviewer:legal') }, headers: { authorization: `Bearer ${harness.adminToken}` } });
      expect(changed.body.revision).toBe(2);
    } finally {
      await second.close();
    }
    const refused = await acme.agent.requestApproval({ login_hint: acme.user.sub, authorization_details: payment({ transaction_id: 'txn_r2', amount_minor: EUR_500 }) }).catch((error) => error);
    expect(refused.code).toBe('no_approver');
    expect(refused.message).toContain("'reviewer:legal'");
  });

  it('refuses every policy call without the admin token', async () => {
    const calls = [
      harness.call('GET', '/api/admin/tenants/acme/policy'),
      harness.call('PUT', '/api/admin/tenants/acme/policy', { body: { policy: harness.deps.policy } }),
      harness.call('DELETE', '/api/admin/tenants/acme/policy'),
      harness.call('GET', '/api/admin/audit?tenant=acme&type=policy_changed'),
      harness.call('PUT', '/api/admin/tenants/acme/policy', { body: { policy: harness.deps.policy }, headers: { authorization: 'Bearer wrong-token' } }),
    ];
    for (const answer of await Promise.all(calls)) expect([answer.status, answer.body.error]).toEqual([401, 'invalid_token']);
    expect((await policyOf('acme')).body.revision).toBe(0);
  });

  it('refuses malformed input with 400 invalid_request', async () => {
    expect((await put('acme', { expected_revision: 0 })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: harness.deps.policy, extra: 1 })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: harness.deps.policy }, { 'if-match': 'yesterday' })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: harness.deps.policy, expected_revision: 1 }, { 'if-match': '"0"' })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: harness.deps.policy }, { 'x-countersign-actor': 'two words' })).body.error).toBe('invalid_request');
    expect((await put('ACME', { policy: harness.deps.policy })).status).toBe(400);
    expect((await harness.admin('GET', '/tenants/acme/policy?revision=7')).status).toBe(404);
    expect((await policyOf('acme')).body.revision).toBe(0);
  });
});

describe('what reads the policy after a request is made', () => {
  let harness: Harness;
  afterEach(() => harness.close());

  it('pushes under the push rate of the revision the request was rated under, not the current one', async () => {
    // No job runs until drained: both requests are made, then the policy changes, then they are pushed.
    harness = await createHarness({ store: 'redis', jobs: { consume: false } });
    const user = await enrollIn(harness, 'acme', 'ana');
    const agent = await agentIn(harness, 'acme');
    const withPushes = (maxCount: number) => {
      const policy = structuredClone(harness.deps.policy) as any;
      policy.limits.pushes_per_user = { window_seconds: 600, max_count: maxCount };
      return policy;
    };
    expect((await harness.admin('PUT', '/tenants/acme/policy', { policy: withPushes(1) })).body.revision).toBe(1);
    const asked = [];
    for (const id of ['txn_p1', 'txn_p2']) asked.push(await agent.requestApproval({ login_hint: user.sub, authorization_details: payment({ transaction_id: id }) }));
    expect((await harness.admin('PUT', '/tenants/acme/policy', { policy: withPushes(20) })).body.revision).toBe(2);
    await harness.drain();
    const trails = await Promise.all(asked.map(async ({ auth_req_id }) => (await harness.admin('GET', `/audit?tenant=acme&auth_req_id=${auth_req_id}`)).body.events));
    const pushEvent = (events: { type: string; reason?: string }[]) => events.filter((event) => event.type.startsWith('push')).map((event) => [event.type, event.reason])[0];
    expect(trails.map(pushEvent)).toEqual([
      ['pushed', undefined],
      ['push_skipped', 'push_rate_limited'],
    ]);
  });
});
