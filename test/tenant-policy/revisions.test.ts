/** Per-tenant policy: going back to the default, a change made on another instance, and the revision a request's reviewers are read from. */
import { describe, expect, it } from 'vitest';
import { harnessClient } from '../support/harness-client.ts';
import { payment } from '../support/payment.ts';
import { EUR_500, LOWERED, withEurElevatedAt, useTenants } from './support.ts';

describe.each(['redis', 'memory'] as const)('per-tenant policy (%s store)', (storeKind) => {
  const ctx = useTenants(storeKind);
  const { put, stored, policyEvents, ask } = ctx;

  it('goes back to the default with DELETE, audited, as a new revision', async () => {
    expect((await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, LOWERED) })).status).toBe(200);
    const reset = await ctx.harness.call('DELETE', '/api/admin/tenants/acme/policy', { headers: { authorization: `Bearer ${ctx.harness.adminToken}`, 'if-match': '"1"', 'x-countersign-actor': 'ana.ops' } });
    expect(reset.status).toBe(200);
    expect(reset.body).toMatchObject({ revision: 2, source: 'default', updated_by: 'ana.ops', policy: ctx.harness.deps.policy });
    const events = await policyEvents('acme');
    expect(events.map((event: any) => [event.detail.from_revision, event.detail.to_revision, event.detail.source, event.detail.actor])).toEqual([
      [0, 1, 'tenant', 'admin'],
      [1, 2, 'default', 'ana.ops'],
    ]);
    expect(events[1].detail.diff).toStrictEqual([{ path: '/types/payment/amount_tiers/EUR/0/from_minor', from: LOWERED, to: 100_000 }]);
    expect((await stored('acme', (await ask(ctx.acme, 'txn_reset')).auth_req_id)).tier).toBe('standard');
    // The same policy again: nothing to change, nothing audited.
    const again = withEurElevatedAt(ctx.harness.deps.policy, LOWERED);
    expect((await put('acme', { policy: again })).body.revision).toBe(3);
    expect((await put('acme', { policy: again })).body.revision).toBe(3);
    expect(await policyEvents('acme')).toHaveLength(3);
    expect((await ctx.harness.admin('DELETE', '/tenants/acme/policy')).body.revision).toBe(4);
    // A tenant already on the default: nothing to change, nothing audited.
    expect((await ctx.harness.admin('DELETE', '/tenants/acme/policy')).body.revision).toBe(4);
    expect(await policyEvents('acme')).toHaveLength(4);
    // An earlier revision stays readable.
    expect((await ctx.harness.admin('GET', '/tenants/acme/policy?revision=1')).body).toMatchObject({ revision: 1, source: 'tenant', updated_by: 'admin' });
  });

  it('applies a change made through another instance to the next request here', async () => {
    const second = await ctx.harness.instance();
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
      expect((await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, LOWERED) })).status).toBe(200);
      const next = await secondAgent.requestApproval({ login_hint: 'ana', authorization_details: payment({ transaction_id: 'txn_s2', amount_minor: EUR_500 }) });
      expect(await stored('acme', next.auth_req_id)).toMatchObject({ tier: 'elevated', policy_revision: 1 });
    } finally {
      await second.close();
    }
  });

  it('reads the reviewers of the roles the current revision asks for, not of those of the revision it guessed', async () => {
    const reviewedBy = (role: string) => {
      const policy = structuredClone(ctx.harness.deps.policy) as any;
      policy.tiers[0].approvers = ['customer', { role }];
      return policy;
    };
    expect((await ctx.harness.admin('POST', '/users', { sub: 'carl', tenant: 'acme', roles: ['reviewer:finance'] })).status).toBe(201);
    expect((await put('acme', { policy: reviewedBy('reviewer:finance') })).status).toBe(200);
    const first = await ask(ctx.acme, 'txn_r1');
    expect(await stored('acme', first.auth_req_id)).toMatchObject({ policy_revision: 1, parties: ['customer', 'role:reviewer:finance'] });
    // Changed through another instance: this one still guesses revision 1, whose role carl holds.
    const second = await ctx.harness.instance();
    try {
      const changed = await second.call('PUT', '/api/admin/tenants/acme/policy', { body: { policy: reviewedBy('reviewer:legal') }, headers: { authorization: `Bearer ${ctx.harness.adminToken}` } });
      expect(changed.body.revision).toBe(2);
    } finally {
      await second.close();
    }
    const refused = await ctx.acme.agent.requestApproval({ login_hint: ctx.acme.user.sub, authorization_details: payment({ transaction_id: 'txn_r2', amount_minor: EUR_500 }) }).catch((error) => error);
    expect(refused.code).toBe('no_approver');
    expect(refused.message).toContain("'reviewer:legal'");
  });
});
