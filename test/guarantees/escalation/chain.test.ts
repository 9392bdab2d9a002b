/** Escalation (docs/escalation.md): the chain a request was made with, two sweeping instances, a holder of two roles, and a role nobody else holds. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { bcAuthorize, pay } from '../policy-support.ts';
import { chainPolicy, useEscalation } from './support.ts';

describe.each(['memory', 'redis'] as const)('escalation (%s store)', (storeKind) => {
  const ctx = useEscalation(storeKind);
  const { start, ask, pass, clientView, steps } = ctx;

  it('keeps the chain the request was made with when the tenant’s policy changes after (admin API)', async () => {
    await start();
    const id = await ask();
    const later = JSON.parse(readFileSync(chainPolicy([{ after_seconds: 10, to: { role: 'manager' } }]), 'utf8'));
    const changed = await ctx.harness.admin('PUT', '/tenants/default/policy', { policy: later, actor: 'ops-lead' });
    expect(changed.status).toBe(200);
    await pass(10);
    expect((await clientView(id)).escalation).toMatchObject({ step: 0, holder: ['customer'], next: 'role:ops' });
    await pass(50);
    expect((await clientView(id)).escalation).toMatchObject({ step: 1, holder: ['role:ops'] });
    // A request made after the change gets the new chain.
    const after = (await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_after') })).body.auth_req_id as string;
    await ctx.harness.drain();
    expect((await clientView(after)).escalation).toMatchObject({ step: 0, steps: 1, next: 'role:manager' });
    await pass(10);
    expect((await clientView(after)).escalation).toMatchObject({ step: 1, holder: ['role:manager'] });
  });

  it('hands the request on once when two instances sweep at the same moment', async () => {
    await start();
    const other = await ctx.harness.instance();
    try {
      const id = await ask();
      ctx.harness.clock.advance(60);
      await Promise.all([ctx.harness.deps.sweeper.sweep(), other.deps.sweeper.sweep()]);
      await Promise.all([ctx.harness.drain(), other.drain()]);
      expect((await steps(id)).filter((step) => step.startsWith('escalated'))).toEqual(['escalated customer → role:ops step 1']);
      expect((await clientView(id)).escalation).toMatchObject({ step: 1 });
    } finally {
      await other.close();
    }
  });

  it('pushes a holder of both roles again when the request reaches their second role: each step has its own mark', async () => {
    await start(chainPolicy([{ after_seconds: 60, to: { role: 'manager' } }], [{ role: 'ops' }]));
    await ctx.harness.admin('PUT', '/users/olga/roles', { roles: ['ops', 'manager'] });
    const id = await ask();
    expect(ctx.pushes.map((push) => push.sub)).toEqual(['olga']);
    await pass(60);
    expect(ctx.pushes.map((push) => push.sub).sort()).toEqual(['max', 'olga', 'olga']);
    expect((await steps(id)).filter((step) => step.startsWith('pushed olga'))).toEqual(['pushed olga', 'pushed olga step 1']);
  });

  it('refuses a request whose chain names a role nobody but the user holds, before anything is stored', async () => {
    await start(chainPolicy([{ after_seconds: 60, to: { role: 'auditor' } }]));
    const refused = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_9') });
    expect([refused.status, refused.body.error]).toEqual([400, 'no_approver']);
  });
});
