/** Push fatigue (docs/guarantees.md), number matching: a wrong pick's deny swap, picks sent together, reviewers and decoys. */
import { keys } from '@countersign/server';
import { describe, expect, it } from 'vitest';
import { recordWrites } from '../../support/store-watch.ts';
import { answer, device, enrollWithRoles, pollToken, type SeenEvent } from '../policy-support.ts';
import { usePushFatigue } from './support.ts';

describe.each(['memory', 'redis'] as const)('push fatigue (%s store)', (storeKind) => {
  const ctx = usePushFatigue(storeKind);
  const { start, ask, elevated } = ctx;

  describe('number matching', () => {
    it('makes the deny compare-and-swap the first write of a wrong pick once its passkey verified: nothing is audited before it', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
      const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.body.binding_code)!;
      const prompt = view.body.options.approve_by_code[decoy] as { challenge: string };
      const response = await ctx.customer.authenticator.authenticate(prompt as never);
      const deviceId = (await device(ctx.harness, ctx.customer, 'GET', '/me')).body.device.device_id as string;
      await ctx.harness.drain();
      const watch = recordWrites(ctx.harness.store);
      let wrong;
      try {
        wrong = await device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response, selected_code: decoy });
        await ctx.harness.deps.background.drain();
      } finally {
        watch.stop();
      }
      expect(wrong.body.error).toBe('wrong_binding_code');
      // Every decision counts against the session's changes, takes its challenge and saves the passkey's
      // counter; the very next write is the denial, after the outbox mark that makes its consequences durable.
      expect(watch.writes.slice(0, 5)).toEqual([
        `rateLimit ${keys.rate('deviceChanges', `default:${ctx.customer.sub}:${deviceId}`)}`,
        `take ${keys.decisionChallenge('default', prompt.challenge)}`,
        `replace ${keys.device('default', ctx.customer.sub, deviceId)}`,
        `sortedAdd ${keys.outboxDue()}`,
        `compareAndSet ${keys.request('default', id)}`,
      ]);
      const audited = watch.writes.findIndex((write) => write.startsWith('streamAppend'));
      expect(audited).toBeGreaterThan(4);
      const trail = (await ctx.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as SeenEvent[];
      expect(trail.filter((event) => event.type === 'refused' || event.type === 'denied').map((event) => [event.type, event.reason ?? event.detail?.cause])).toEqual([
        ['refused', 'wrong_binding_code'],
        ['denied', 'wrong_binding_code'],
      ]);
    });

    it('settles a wrong and a right pick sent together by whichever swap the store runs first', async () => {
      // A synced passkey (its counter stays 0): two answers signed one after the other would otherwise
      // race on the counter too, and the one saved first would make the other a counter regression.
      await start(undefined, { counter: 'fixed' });
      for (const first of ['wrong', 'right'] as const) {
        const asked = await ask(`txn_race_${first}`, 250_000);
        const id = asked.body.auth_req_id;
        const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
        const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.body.binding_code)!;
        const prompts = view.body.options.approve_by_code;
        const [wrongAnswer, rightAnswer] = [await ctx.customer.authenticator.authenticate(prompts[decoy]), await ctx.customer.authenticator.authenticate(prompts[asked.body.binding_code])];
        // Hold the swap of the pick that is to land second until the other's swap has landed.
        const compareAndSet = ctx.harness.store.compareAndSet.bind(ctx.harness.store);
        let landed!: () => void;
        const firstLanded = new Promise<void>((resolve) => (landed = resolve));
        ctx.harness.store.compareAndSet = async (key, guards, set, options) => {
          const mine = set.state === 'denied' ? 'wrong' : 'right';
          if (key === keys.request('default', id) && mine !== first) await firstLanded;
          const result = await compareAndSet(key, guards, set, options);
          if (key === keys.request('default', id) && mine === first) landed();
          return result;
        };
        try {
          const [wrong, right] = await Promise.all([
            device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: wrongAnswer, selected_code: decoy }),
            device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: rightAnswer, selected_code: asked.body.binding_code }),
          ]);
          const state = (await ctx.harness.admin('GET', `/requests/${id}`)).body.request.state;
          const token = await pollToken(ctx.harness, ctx.client, id);
          if (first === 'wrong') {
            expect([wrong.body.error, right.body.error, state, token.body.error]).toEqual(['wrong_binding_code', 'request_not_pending', 'denied', 'access_denied']);
          } else {
            // The right code won; the wrong pick, refused all the same, finds the request settled.
            expect([wrong.body.error, right.body.request?.state, state, typeof token.body.access_token]).toEqual(['request_not_pending', 'approved', 'approved', 'string']);
            const trail = (await ctx.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as SeenEvent[];
            expect(trail.filter((event) => event.type === 'refused').map((event) => event.reason)).toEqual(['wrong_binding_code']);
          }
        } finally {
          ctx.harness.store.compareAndSet = compareAndSet;
        }
      }
    });

    it('denies for everyone at the customer’s wrong pick, also after a reviewer approved, and the request leaves the reviewer’s inbox', async () => {
      await start();
      const reviewer = await enrollWithRoles(ctx.harness, 'rita', ['reviewer:finance']);
      // EUR 12,000.00: the shipped policy's `high` tier, the customer with number matching and a finance reviewer.
      const asked = await ask('txn_high', 1_200_000);
      const id = asked.body.auth_req_id;
      expect((await answer(ctx.harness, reviewer, id, { decision: 'approve' })).body.request.state).toBe('pending');
      const candidates = (await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`)).body.request.number_matching.candidates as string[];
      const decoy = candidates.find((code) => code !== asked.body.binding_code)!;
      expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve', code: decoy })).body.error).toBe('wrong_binding_code');
      expect((await ctx.harness.admin('GET', `/requests/${id}`)).body.request.state).toBe('denied');
      expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve', code: asked.body.binding_code })).body.options).toBeNull();
      expect((await pollToken(ctx.harness, ctx.client, id)).body.error).toBe('access_denied');
      expect(((await device(ctx.harness, reviewer, 'GET', '/requests')).body.requests as unknown[]).length).toBe(0);
    });

    it('refuses a decoy’s prompt sent as the right code, without counting it as a pick', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
      const decoy = (view.body.request.number_matching.candidates as string[]).find((code) => code !== asked.body.binding_code)!;
      const response = await ctx.customer.authenticator.authenticate(view.body.options.approve_by_code[decoy]);
      const passedOff = await device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response, selected_code: asked.body.binding_code });
      expect([passedOff.status, passedOff.body.error]).toEqual([400, 'invalid_assertion']);
      const plainApprove = await device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await ctx.customer.authenticator.authenticate(view.body.options.deny) });
      expect(plainApprove.body.error).toBe('invalid_assertion');
      // A prompt that does not match is no pick: nothing is denied, and the right code still approves.
      expect((await ctx.harness.admin('GET', `/requests/${id}`)).body.request.state).toBe('pending');
      expect(ctx.audit.filter((event) => event.type === 'denied')).toEqual([]);
      expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve', code: asked.body.binding_code })).body.request.state).toBe('approved');
    });
  });
});
