/** Per-tenant policy: the changes the admin API refuses, and the callers it refuses. */
import { describe, expect, it } from 'vitest';
import { LOWERED, withEurElevatedAt, useTenants } from './support.ts';

describe.each(['redis', 'memory'] as const)('per-tenant policy (%s store)', (storeKind) => {
  const ctx = useTenants(storeKind);
  const { policyOf, put, stored, policyEvents, ask } = ctx;

  it('refuses an invalid policy with each problem at its JSON pointer, and changes nothing', async () => {
    const policy = withEurElevatedAt(ctx.harness.deps.policy, LOWERED);
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
    expect((await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, 20_000).tiers })).body.problems[0]).toMatchObject({ path: '' });
    // The schema's own checks across members are listed too, once the shape is right.
    const unknownTier = withEurElevatedAt(ctx.harness.deps.policy, LOWERED);
    unknownTier.types.payment.amount_tiers.EUR[1].tier = 'urgent';
    expect((await put('acme', { policy: unknownTier })).body.problems).toStrictEqual([{ path: '/types/payment/amount_tiers/EUR/1/tier', message: 'no tier named urgent' }]);

    expect((await policyOf('acme')).body).toMatchObject({ revision: 0, source: 'default' });
    expect(await policyEvents('acme')).toStrictEqual([]);
    expect((await stored('acme', (await ask(ctx.acme, 'txn_1')).auth_req_id)).tier).toBe('standard');
  });

  it('refuses an escalation step this server would never reach: past REQUEST_EXPIRY_MAX, which caps every request', async () => {
    expect(ctx.harness.deps.config.requestExpiryMax).toBe(600);
    const chained = (afterSeconds: number) => {
      const policy = structuredClone(ctx.harness.deps.policy) as any;
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
    expect((await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, LOWERED), expected_revision: 0 })).status).toBe(200);
    const stale = await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, 20_000), expected_revision: 0 });
    expect([stale.status, stale.body.error, stale.body.revision]).toEqual([409, 'revision_conflict', 1]);
    const staleHeader = await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, 20_000) }, { 'if-match': '"0"' });
    expect([staleHeader.status, staleHeader.body.error]).toEqual([409, 'revision_conflict']);
    expect((await policyOf('acme')).body.policy.types.payment.amount_tiers.EUR[0].from_minor).toBe(LOWERED);
    expect(await policyEvents('acme')).toHaveLength(1);

    // Of two changes made at once against the same revision, exactly one is stored.
    const racing = await Promise.all([30_000, 35_000].map((from) => put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, from), expected_revision: 1 })));
    expect(racing.map((answer) => answer.status).sort()).toEqual([200, 409]);
    expect((await policyOf('acme')).body.revision).toBe(2);
    expect(await policyEvents('acme')).toHaveLength(2);
  });

  it('refuses every policy call without the admin token', async () => {
    const calls = [
      ctx.harness.call('GET', '/api/admin/tenants/acme/policy'),
      ctx.harness.call('PUT', '/api/admin/tenants/acme/policy', { body: { policy: ctx.harness.deps.policy } }),
      ctx.harness.call('DELETE', '/api/admin/tenants/acme/policy'),
      ctx.harness.call('GET', '/api/admin/audit?tenant=acme&type=policy_changed'),
      ctx.harness.call('PUT', '/api/admin/tenants/acme/policy', { body: { policy: ctx.harness.deps.policy }, headers: { authorization: 'Bearer wrong-token' } }),
    ];
    for (const answer of await Promise.all(calls)) expect([answer.status, answer.body.error]).toEqual([401, 'invalid_token']);
    expect((await policyOf('acme')).body.revision).toBe(0);
  });

  it('refuses malformed input with 400 invalid_request', async () => {
    expect((await put('acme', { expected_revision: 0 })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: ctx.harness.deps.policy, extra: 1 })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: ctx.harness.deps.policy }, { 'if-match': 'yesterday' })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: ctx.harness.deps.policy, expected_revision: 1 }, { 'if-match': '"0"' })).body.error).toBe('invalid_request');
    expect((await put('acme', { policy: ctx.harness.deps.policy }, { 'x-countersign-actor': 'two words' })).body.error).toBe('invalid_request');
    expect((await put('ACME', { policy: ctx.harness.deps.policy })).status).toBe(400);
    expect((await ctx.harness.admin('GET', '/tenants/acme/policy?revision=7')).status).toBe(404);
    expect((await policyOf('acme')).body.revision).toBe(0);
  });
});
