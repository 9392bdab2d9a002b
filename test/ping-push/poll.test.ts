/** Poll mode (CIBA Core §10.1): a poll client is never notified. */
import { describe, expect, it } from 'vitest';
import { payment } from '../support/payment.ts';
import { useNotifications } from './support.ts';

describe.each(['memory', 'redis'] as const)('ping and push notifications (%s store)', (storeKind) => {
  const ctx = useNotifications(storeKind);
  const { agentFor, decided } = ctx;

  describe('poll', () => {
    it('never notifies a poll client, even one with a notification endpoint, and leaves no deadline behind a decision', async () => {
      const agent = await agentFor('poll');
      const asked = await agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() });
      await decided(asked.auth_req_id, 'approve');
      ctx.harness.clock.advance(300);
      expect(await ctx.harness.deps.sweeper.sweep()).toBe(0);
      await ctx.harness.deps.background.drain();
      expect(ctx.receiver.received).toEqual([]);
    });
  });
});
