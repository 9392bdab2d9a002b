/** Escalation (docs/escalation.md): a ping when the chain runs out, a decision inside the window, and a shorter requested_expiry. */
import { createAgentClient } from '@countersign/agent';
import { describe, expect, it } from 'vitest';
import { startNotificationReceiver } from '../../support/notification-receiver.ts';
import { bcAuthorize, pay } from '../policy-support.ts';
import { useEscalation } from './support.ts';

describe.each(['memory', 'redis'] as const)('escalation (%s store)', (storeKind) => {
  const ctx = useEscalation(storeKind);
  const { start, ask, pass, clientView, steps } = ctx;

  it('pings a ping client when the chain runs out, as for any expiry, once', async () => {
    await start();
    const receiver = await startNotificationReceiver();
    try {
      const registered = await ctx.harness.admin('POST', '/clients', { name: 'Ping agent', token_delivery_mode: 'ping', backchannel_client_notification_endpoint: receiver.url });
      const agent = createAgentClient({ issuer: ctx.harness.issuer, clientId: registered.body.client_id, clientSecret: registered.body.client_secret, fetch: ctx.harness.fetch });
      const asked = await agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: pay('txn_ping'), client_notification_token: 'cnt_escalation_0123456789abcdef' });
      await ctx.harness.drain();
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
    expect((await ctx.harness.decide(ctx.customer, id, 'approve')).body.request.state).toBe('approved');
    expect(await pass(30)).toBe(0);
    expect(await pass(600)).toBe(1); // the approval runs out unredeemed, as any would
    expect(await steps(id)).toEqual(['proposed', 'pushed customer_1', 'approved', 'expired', 'pushed customer_1 request_expired']);
    expect(ctx.pushes.map((push) => push.sub)).not.toContain('olga');
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
    const middle = (await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_2'), requested_expiry: 90 })).body.auth_req_id as string;
    await ctx.harness.drain();
    await pass(60);
    expect((await clientView(middle)).escalation).toMatchObject({ step: 1, holder: ['role:ops'], next: null });
    await pass(30);
    const middleView = await clientView(middle);
    expect([middleView.state, middleView.expiry_reason]).toEqual(['expired', undefined]);
    expect((await steps(middle)).filter((step) => step.startsWith('escalated') || step.startsWith('expired'))).toEqual(['escalated customer → role:ops step 1', 'expired']);
  });
});
