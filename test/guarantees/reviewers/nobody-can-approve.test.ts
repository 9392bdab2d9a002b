/** Reviewers (docs/guarantees.md): a request whose required party has nobody to approve it. */
import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { recordWrites } from '../../support/store-watch.ts';
import { bcAuthorize, onlyTier, pay, testPolicy } from '../policy-support.ts';
import { twoReviewers, useReviewers } from './support.ts';

describe.each(['memory', 'redis'] as const)('reviewers (%s store)', (storeKind) => {
  const ctx = useReviewers(storeKind);
  const { start, ask, inbox } = ctx;

  describe('a request nobody can approve', () => {
    /** Asks, watching every store write and every push of this one request. */
    async function askWatched(transactionId: string) {
      const pushed: string[] = [];
      const notifyUser = ctx.harness.deps.push.notifyUser.bind(ctx.harness.deps.push);
      ctx.harness.deps.push.notifyUser = async (input) => {
        pushed.push(input.sub);
        return notifyUser(input);
      };
      const watch = recordWrites(ctx.harness.deps.store);
      try {
        const reply = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay(transactionId) });
        // Whatever the request started in the background (a push) has run.
        await ctx.harness.deps.background.drain();
        return { reply, writes: [...watch.writes], pushed };
      } finally {
        watch.stop();
      }
    }

    /** Nothing of the refused request is anywhere: no record, no transaction, no place in a window, no queue, no push; only its audit (and the call counted against the client's rate limit). */
    async function expectNothingStored(transactionId: string, refused: Awaited<ReturnType<typeof askWatched>>) {
      expect(refused.writes.filter((write) => !/ audit/.test(write))).toEqual([`rateLimit ${keys.rate('bcAuthorize', `default:${ctx.client.client_id}`)}`]);
      expect(refused.pushed).toEqual([]);
      const now = ctx.harness.clock.now();
      expect(await ctx.harness.store.get(keys.transaction('default', ctx.client.client_id, transactionId))).toBeNull();
      expect(await ctx.harness.store.sortedWindowMembers(keys.pendingRequests('default', ctx.customer.sub), now, 0)).toEqual([]);
      const inWindow = (key: string) => ctx.harness.store.windowAdd(key, { nowMs: now, windowMs: 3_600_000, member: '-', maxCount: 0 });
      expect(await inWindow(keys.window('default', 'velocity-user', ctx.customer.sub))).toMatchObject({ count: 0, totals: {} });
      expect(await inWindow(keys.window('default', 'velocity-client', ctx.client.client_id))).toMatchObject({ count: 0, totals: {} });
      expect(await ctx.harness.store.setMembers(keys.roleRequests('default', 'reviewer:finance'))).toEqual([]);
      expect(await ctx.harness.store.sortedRangeByScore(keys.deadlines(), Number.MAX_SAFE_INTEGER, 10)).toEqual([]);
      expect([await inbox(ctx.customer), await inbox(ctx.reviewer)]).toEqual([[], []]);
      expect(ctx.audit.filter((event) => event.type !== 'roles_changed').map((event) => [event.type, event.reason, event.client_id])).toEqual([['refused', 'no_approver', ctx.client.client_id]]);
    }

    it('refuses with 400 no_approver, naming the role, when nobody in the tenant holds it: nothing stored, counted or pushed', async () => {
      await start();
      await ctx.harness.admin('PUT', '/users/rita/roles', { roles: [] });
      // A finance reviewer of another tenant does not count.
      await ctx.harness.admin('POST', '/users', { sub: 'tina', roles: ['reviewer:finance'], tenant: 'tenant-b' });
      const refused = await askWatched('txn_1');
      expect([refused.reply.status, refused.reply.body.error]).toEqual([400, 'no_approver']);
      expect(refused.reply.body.error_description).toBe("No one in this tenant but the user holds the role 'reviewer:finance', which this request needs (no one reviews their own request). An operator must assign it first.");
      await expectNothingStored('txn_1', refused);

      // Once someone holds the role, the same action is taken.
      await ctx.harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance'] });
      expect((await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_1') })).status).toBe(200);
    });

    it('counts no role held only by the user the request is for: they may not review their own request', async () => {
      await start();
      await ctx.harness.admin('PUT', '/users/rita/roles', { roles: [] });
      await ctx.harness.admin('PUT', '/users/customer_1/roles', { roles: ['reviewer:finance'] });
      const refused = await askWatched('txn_1');
      expect([refused.reply.status, refused.reply.body.error]).toEqual([400, 'no_approver']);
      expect(refused.reply.body.error_description).toContain("No one in this tenant but the user holds the role 'reviewer:finance'");
      await expectNothingStored('txn_1', refused);
    });

    it('refuses before the limits are asked: with the user’s pending limit full, the answer is still no_approver', async () => {
      await start({
        POLICY_FILE: testPolicy((policy) => {
          onlyTier(policy, { name: 'dual', approvers: ['customer', { role: 'reviewer:finance' }], number_matching: false });
          policy.limits.max_pending_per_user = 1;
        }),
      });
      const first = await ask('txn_1');
      await ctx.harness.admin('PUT', '/users/rita/roles', { roles: [] });
      expect((await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_2') })).body.error).toBe('no_approver');
      expect(await ctx.harness.store.sortedWindowMembers(keys.pendingRequests('default', ctx.customer.sub), ctx.harness.clock.now(), 0)).toEqual([first]);
    });

    it('names the role nobody holds among several, and refuses two roles that only one person holds (one person fills one role)', async () => {
      await start({ POLICY_FILE: twoReviewers() });
      const risk = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_1') });
      expect([risk.status, risk.body.error]).toEqual([400, 'no_approver']);
      expect(risk.body.error_description).toContain("holds the role 'reviewer:risk', which");
      expect(risk.body.error_description).not.toContain('reviewer:finance');

      await ctx.harness.admin('PUT', '/users/rita/roles', { roles: ['reviewer:finance', 'reviewer:risk'] });
      const one = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_1') });
      expect([one.status, one.body.error]).toEqual([400, 'no_approver']);
      expect(one.body.error_description).toBe("This request needs 2 different reviewers ('reviewer:finance' and 'reviewer:risk'); fewer people hold those roles in this tenant, the user aside. An operator must assign them first.");

      await ctx.harness.admin('POST', '/users', { sub: 'rob', roles: ['reviewer:finance'] });
      expect((await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: pay('txn_1') })).status).toBe(200);
    });
  });
});
