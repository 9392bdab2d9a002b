/** Reviewers (docs/guarantees.md): what the client and the parties see while a request waits for a reviewer. */
import { createAgentClient } from '@countersign/agent';
import { describe, expect, it } from 'vitest';
import { answer, pollToken } from '../policy-support.ts';
import { twoReviewers, useReviewers } from './support.ts';

describe.each(['memory', 'redis'] as const)('reviewers (%s store)', (storeKind) => {
  const ctx = useReviewers(storeKind);
  const { start, ask } = ctx;

  describe('a request waiting for a reviewer', () => {
    const basic = () => ({ authorization: `Basic ${Buffer.from(`${encodeURIComponent(ctx.client.client_id)}:${encodeURIComponent(ctx.client.client_secret)}`).toString('base64')}` });

    it('says in /token’s authorization_pending and in the client’s view which parties are still needed, before and after the customer approves', async () => {
      await start();
      const id = await ask();
      const agent = createAgentClient({ issuer: ctx.harness.issuer, clientId: ctx.client.client_id, clientSecret: ctx.client.client_secret, fetch: ctx.harness.fetch });
      const polled = await pollToken(ctx.harness, ctx.client, id);
      expect([polled.body.error, polled.body.error_description]).toEqual(['authorization_pending', "Waiting for the approval of the user and a reviewer with the role 'reviewer:finance'."]);
      const before = await ctx.harness.call('GET', `/requests/${id}`, { headers: basic() });
      expect(before.body).toEqual({ auth_req_id: id, state: 'pending', expires_at: expect.any(String), outcome: null, awaiting: ['customer', 'role:reviewer:finance'] });

      expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve' })).body.request.state).toBe('pending');
      ctx.harness.clock.advance(5);
      const waiting = await pollToken(ctx.harness, ctx.client, id);
      expect([waiting.body.error, waiting.body.error_description]).toEqual(['authorization_pending', "The user has approved; still waiting for the approval of a reviewer with the role 'reviewer:finance'."]);
      expect((await ctx.harness.call('GET', `/requests/${id}`, { headers: basic() })).body.awaiting).toEqual(['role:reviewer:finance']);
      expect(await agent.getRequest(id)).toMatchObject({ state: 'pending', awaiting: ['role:reviewer:finance'] });

      expect((await answer(ctx.harness, ctx.reviewer, id, { decision: 'approve' })).body.request.state).toBe('approved');
      expect(await agent.getRequest(id)).toMatchObject({ state: 'approved', awaiting: [] });
    });

    it('says who approved and who is still needed when one of two reviewers has approved', async () => {
      await start({ POLICY_FILE: twoReviewers() });
      await ctx.harness.admin('POST', '/users', { sub: 'rob', roles: ['reviewer:risk'] });
      const id = await ask();
      expect((await answer(ctx.harness, ctx.reviewer, id, { decision: 'approve' })).body.request.state).toBe('pending');
      const waiting = await pollToken(ctx.harness, ctx.client, id);
      expect(waiting.body.error_description).toBe("A reviewer with the role 'reviewer:finance' has approved; still waiting for the approval of a reviewer with the role 'reviewer:risk'.");
      expect((await ctx.harness.call('GET', `/requests/${id}`, { headers: basic() })).body.awaiting).toEqual(['role:reviewer:risk']);
    });
  });
});
