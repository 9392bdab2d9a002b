/** Escalation (docs/escalation.md): a window that passes hands the request to the next role; the last one passing expires it loudly. */
import { createAgentClient } from '@countersign/agent';
import { describe, expect, it } from 'vitest';
import { device, pollToken } from '../policy-support.ts';
import { useEscalation } from './support.ts';

describe.each(['memory', 'redis'] as const)('escalation (%s store)', (storeKind) => {
  const ctx = useEscalation(storeKind);
  const { start, ask, pass, clientView, inbox, auditOf, steps, post } = ctx;

  it('asks the next role when the window passes: pushed to it, in its inbox, and the customer can no longer approve alone', async () => {
    await start();
    const id = await ask();
    const stored = (await ctx.harness.admin('GET', `/requests/${id}`)).body.request;
    // The chain as fixed on the request at creation: seconds after it was made (times as the admin API writes them).
    const created = Date.parse(stored.created_at as string);
    expect(stored.created_at).toBe(new Date(created).toISOString());
    expect(stored.escalation).toEqual([
      { at: new Date(created + 60_000).toISOString(), party: 'role:ops' },
      { at: new Date(created + 180_000).toISOString(), party: 'role:manager' },
    ]);
    expect(await clientView(id)).toMatchObject({ state: 'pending', awaiting: ['customer'], escalation: { step: 0, steps: 2, holder: ['customer'], next: 'role:ops' } });
    expect(await inbox(ctx.olga)).toEqual([]);
    // The customer opens it inside the window, and answers only after it passed.
    const customerView = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
    expect(customerView.body.request.escalation).toMatchObject({ step: 0, holder: ['customer'], next: 'role:ops' });

    expect(await pass(59)).toBe(0);
    expect(ctx.pushes.map((push) => push.sub)).toEqual(['customer_1']);
    expect(await pass(1)).toBeGreaterThanOrEqual(1);

    expect(ctx.pushes.map((push) => [push.sub, push.summary])).toEqual([
      ['customer_1', 'Refund agent: EUR 490.00 to ACME Ltd'],
      ['olga', 'Escalated to you. Refund agent: EUR 490.00 to ACME Ltd'],
    ]);
    expect([await inbox(ctx.olga), await inbox(ctx.max)]).toEqual([[id], []]);
    const olgaView = await device(ctx.harness, ctx.olga, 'GET', `/requests/${id}`);
    expect(olgaView.body.request).toMatchObject({ escalation: { step: 1, steps: 2, holder: ['role:ops'], next: 'role:manager' }, approvals: [{ party: 'role:ops', status: 'waiting' }], viewer: { party: 'role:ops', can_decide: true } });
    expect(olgaView.body.request.escalation.next_at).toBe(new Date(created + 180_000).toISOString());

    // The customer's approval, signed inside the window, no longer approves anything.
    const late = await post(ctx.customer, id, customerView.body.options.approve);
    expect([late.status, late.body.error]).toEqual([409, 'party_escalated']);
    const again = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
    expect([again.body.request.state, again.body.request.viewer.party, again.body.options.approve]).toEqual(['pending', null, null]);
    // The agent sees who holds it now, in the view and in the pending answer.
    expect(await clientView(id)).toMatchObject({ state: 'pending', awaiting: ['role:ops'], escalation: { step: 1, holder: ['role:ops'], next: 'role:manager' } });
    // And the operator, in the stored request and its display.
    const operator = (await ctx.harness.admin('GET', `/requests/${id}`)).body;
    expect([operator.request.escalation_step, operator.request.parties, operator.request.held_before]).toEqual([1, ['role:ops'], ['customer']]);
    expect(operator.display.escalation).toMatchObject({ step: 1, holder: ['role:ops'], next: 'role:manager' });
    const pending = await pollToken(ctx.harness, ctx.client, id);
    expect([pending.body.error, pending.body.error_description]).toEqual(['authorization_pending', "Escalated (step 1 of 2): waiting for the approval of a reviewer with the role 'ops'."]);
    const agent = createAgentClient({ issuer: ctx.harness.issuer, clientId: ctx.client.client_id, clientSecret: ctx.client.client_secret, fetch: ctx.harness.fetch });
    expect(await agent.getRequest(id)).toMatchObject({ awaiting: ['role:ops'], escalation: { step: 1, steps: 2, holder: ['role:ops'], next: 'role:manager' } });

    // The new holder decides alone.
    expect((await post(ctx.olga, id, olgaView.body.options.approve)).body.request.state).toBe('approved');
    ctx.harness.clock.advance(5);
    expect((await pollToken(ctx.harness, ctx.client, id)).status).toBe(200);
    expect(await steps(id)).toEqual(['proposed', 'pushed customer_1', 'escalated customer → role:ops step 1', 'pushed olga step 1', 'approved']);
    expect((await auditOf(id)).find((event) => event.type === 'refused')).toMatchObject({ reason: 'party_escalated', sub: 'customer_1' });
    // Approved: nothing escalates any more.
    expect(await pass(200)).toBe(0);
    expect(ctx.pushes.filter((push) => push.sub === 'max')).toEqual([]);
  });

  it('expires loudly with escalation_exhausted once the last window passes too, every step audited in order', async () => {
    await start();
    const id = await ask();
    await pass(60);
    const olgaView = await device(ctx.harness, ctx.olga, 'GET', `/requests/${id}`);
    await pass(120);
    // The manager holds it now; ops, whose window passed, cannot approve any more either.
    expect([await inbox(ctx.olga), await inbox(ctx.max)]).toEqual([[], [id]]);
    const late = await post(ctx.olga, id, olgaView.body.options.approve);
    expect([late.status, late.body.error]).toEqual([409, 'party_escalated']);
    expect(await clientView(id)).toMatchObject({ awaiting: ['role:manager'], escalation: { step: 2, steps: 2, holder: ['role:manager'], next: null, next_at: null } });

    expect(await pass(419)).toBe(0);
    expect(await pass(1)).toBe(1);
    const polled = await pollToken(ctx.harness, ctx.client, id);
    expect([polled.status, polled.body.error]).toEqual([400, 'expired_token']);
    expect(await clientView(id)).toMatchObject({ state: 'expired', awaiting: [], expiry_reason: 'escalation_exhausted', escalation: { step: 2, holder: [], next: null } });
    expect((await ctx.harness.admin('GET', `/requests/${id}`)).body.request).toMatchObject({ state: 'expired', escalation_step: 2, expiry_reason: 'escalation_exhausted' });
    expect(await steps(id)).toEqual(['proposed', 'pushed customer_1', 'escalated customer → role:ops step 1', 'pushed olga step 1', 'escalated role:ops → role:manager step 2', 'pushed max step 2', 'expired escalation_exhausted', 'pushed customer_1 request_expired']);
    expect(ctx.pushes.map((push) => [push.sub, push.kind])).toEqual([
      ['customer_1', 'approval_request'],
      ['olga', 'approval_request'],
      ['max', 'approval_request'],
      ['customer_1', 'request_expired'],
    ]);
  });
});
