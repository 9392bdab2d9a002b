/** Per-tenant policy: every tenant starts on the server default; a change is audited, applies to later requests only, and to its own tenant only. */
import { describe, expect, it } from 'vitest';
import { payment } from '../support/payment.ts';
import { EUR_500, LOWERED, withEurElevatedAt, useTenants } from './support.ts';

describe.each(['redis', 'memory'] as const)('per-tenant policy (%s store)', (storeKind) => {
  const ctx = useTenants(storeKind);
  const { policyOf, put, stored, policyEvents, ask } = ctx;

  it('starts every tenant on the server default, as revision 0', async () => {
    const { status, body, headers } = await ctx.harness.call('GET', '/api/admin/tenants/acme/policy', { headers: { authorization: `Bearer ${ctx.harness.adminToken}` } });
    expect(status).toBe(200);
    expect(headers.get('etag')).toBe('"0"');
    expect(body).toStrictEqual({ tenant: 'acme', revision: 0, policy: ctx.harness.deps.policy, source: 'default' });
  });

  it('audits a change with its actor and diff; a request made before keeps its tier, one made after uses the new tiers', async () => {
    const before = await ask(ctx.acme, 'txn_before');
    expect((await stored('acme', before.auth_req_id)).tier).toBe('standard');

    const startedAt = ctx.harness.clock.now();
    const changed = await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, LOWERED), expected_revision: 0 }, { 'x-countersign-actor': 'ops@example.com' });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).toBe('"1"');
    expect(changed.body).toMatchObject({ tenant: 'acme', revision: 1, source: 'tenant', updated_by: 'ops@example.com' });
    expect(Date.parse(changed.body.updated_at)).toBeGreaterThanOrEqual(startedAt);
    expect(Date.parse(changed.body.updated_at)).toBeLessThanOrEqual(ctx.harness.clock.now());
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

    const after = await ask(ctx.acme, 'txn_after');
    expect(after.binding_code).toMatch(/^\d{2}$/);
    expect(await stored('acme', after.auth_req_id)).toMatchObject({ tier: 'elevated', policy_revision: 1, token_lifetime: 300 });

    // The earlier request is still standard: the customer alone, no number matching, the server's token lifetime.
    const earlier = await stored('acme', before.auth_req_id);
    expect(earlier).toMatchObject({ tier: 'standard', parties: ['customer'] });
    expect(earlier.policy_revision).toBeUndefined();
    expect(earlier.code_candidates).toBeUndefined();
    await ctx.harness.drain();
    const decided = await ctx.harness.decide(ctx.acme.user, before.auth_req_id, 'approve');
    expect([decided.status, decided.body.request.state]).toEqual([200, 'approved']);
    const polled = await ctx.acme.agent.pollToken(before.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    expect(polled.token.expires_in).toBe(600);
    const details = payment({ transaction_id: 'txn_before', amount_minor: EUR_500 });
    expect((await ctx.acme.agent.redeem(polled.token.access_token, details)).status).toBe('redeemed');
  });

  it('leaves another tenant on its own policy', async () => {
    expect((await put('acme', { policy: withEurElevatedAt(ctx.harness.deps.policy, LOWERED) })).status).toBe(200);
    const asked = await ask(ctx.other, 'txn_other');
    expect(asked.binding_code).toBeUndefined();
    expect((await stored('globex', asked.auth_req_id)).tier).toBe('standard');
    expect((await policyOf('globex')).body).toMatchObject({ revision: 0, source: 'default' });
    expect(await policyEvents('globex')).toStrictEqual([]);
  });
});
