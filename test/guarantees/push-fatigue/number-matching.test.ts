/** Push fatigue (docs/guarantees.md), number matching: the codes drawn, shown, signed and a wrong pick denying. */
import { keys } from '@countersign/server';
import { base64url, decisionChallenge } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { drawBindingCodes } from '../../../server/src/policy/index.ts';
import { answer, device, pollToken, type SeenEvent } from '../policy-support.ts';
import { usePushFatigue } from './support.ts';

describe('drawing number-matching codes', () => {
  it('draws two-digit codes 10–99, the right one and two different decoys, shuffled with the injected randomness', () => {
    const seen = new Set<number>();
    for (let i = 0; i < 60; i++) {
      const { binding_code, candidates } = drawBindingCodes(() => base64url(crypto.getRandomValues(new Uint8Array(16))));
      expect(binding_code).toMatch(/^[1-9][0-9]$/);
      expect(new Set(candidates).size).toBe(3);
      expect(candidates).toContain(binding_code);
      seen.add(candidates.indexOf(binding_code));
    }
    expect([...seen].sort()).toEqual([0, 1, 2]);
    // Bytes at or above 180 are thrown away (rejection sampling), so 0xff never biases a code.
    const fixed = drawBindingCodes(() => base64url(new Uint8Array([0xff, 5, 5, 6, 7, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0])));
    expect(fixed).toEqual({ binding_code: '15', candidates: ['16', '17', '15'] });
  });
});

describe.each(['memory', 'redis'] as const)('push fatigue (%s store)', (storeKind) => {
  const ctx = usePushFatigue(storeKind);
  const { start, ask, elevated } = ctx;

  describe('number matching', () => {
    it('gives the agent a two-digit binding_code and the device three candidates, never the code itself', async () => {
      await start();
      const asked = await elevated();
      expect(asked.body.binding_code).toMatch(/^[1-9][0-9]$/);
      const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${asked.body.auth_req_id}`);
      const { candidates } = view.body.request.number_matching;
      expect(new Set(candidates).size).toBe(3);
      expect(candidates).toContain(asked.body.binding_code);
      expect(view.body.request.tier).toBe('elevated');
      expect(JSON.stringify(view.body.request)).not.toContain('binding_code');
      expect(view.body.options.approve).toBeNull();
      expect(Object.keys(view.body.options.approve_by_code).sort()).toEqual([...candidates].sort());
      // A request without number matching offers no codes and the agent gets none.
      const plain = await ask('txn_small');
      expect(plain.body).not.toHaveProperty('binding_code');
      expect((await device(ctx.harness, ctx.customer, 'GET', `/requests/${plain.body.auth_req_id}`)).body.request.number_matching).toBeNull();
    });

    it('signs the picked code into the challenge only for number-matching approvals', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      const hash = (await ctx.harness.admin('GET', `/requests/${id}`)).body.request.details_hash;
      const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
      const signedBy = async (challenge: string) => JSON.parse((await ctx.harness.store.get(keys.decisionChallenge('default', challenge)))!);
      for (const [code, prompt] of Object.entries(view.body.options.approve_by_code as Record<string, { challenge: string }>)) {
        const { nonce } = await signedBy(prompt.challenge);
        expect(base64url(await decisionChallenge({ auth_req_id: id, details_hash: hash, decision: 'approve', nonce, selected_code: code }))).toBe(prompt.challenge);
      }
      const deny = view.body.options.deny.challenge;
      expect(base64url(await decisionChallenge({ auth_req_id: id, details_hash: hash, decision: 'deny', nonce: (await signedBy(deny)).nonce }))).toBe(deny);
      expect((await answer(ctx.harness, ctx.customer, id, { decision: 'approve', code: asked.body.binding_code })).body.request.state).toBe('approved');
      expect((await pollToken(ctx.harness, ctx.client, id)).body.expires_in).toBe(300);
    });

    it('denies the request at the first wrong pick: no later pick approves it, the right code included, and no token is ever issued', async () => {
      await start();
      const asked = await elevated();
      const id = asked.body.auth_req_id;
      // Every prompt the phone was offered, held on to: someone tapping each code in turn has them all.
      const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
      const prompts = view.body.options.approve_by_code as Record<string, { challenge: string }>;
      const candidates = view.body.request.number_matching.candidates as string[];
      const decoys = candidates.filter((code) => code !== asked.body.binding_code);
      const pick = async (code: string) => device(ctx.harness, ctx.customer, 'POST', `/requests/${id}/decision`, { decision: 'approve', response: await ctx.customer.authenticator.authenticate(prompts[code]!), selected_code: code });

      const wrong = await pick(decoys[0]!);
      expect([wrong.status, wrong.body.error, wrong.body.error_description]).toEqual([400, 'wrong_binding_code', 'That was not the code shown by the agent, so the request was denied. Ask the agent to send it again.']);
      expect(wrong.body).not.toHaveProperty('attempts_left');
      expect((await ctx.harness.admin('GET', `/requests/${id}`)).body.request.state).toBe('denied');
      for (const code of [decoys[1]!, asked.body.binding_code as string]) {
        const later = await pick(code);
        expect([code, later.status, later.body.error]).toEqual([code, 409, 'request_not_pending']);
      }
      // Opened again, it offers nothing to pick.
      const again = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
      expect([again.body.request.state, again.body.request.number_matching, again.body.options]).toEqual(['denied', null, null]);

      expect((await pollToken(ctx.harness, ctx.client, id)).body.error).toBe('access_denied');
      ctx.harness.clock.advance(10);
      expect((await pollToken(ctx.harness, ctx.client, id)).body.error).toBe('access_denied');
      expect((await ctx.harness.admin('GET', `/requests/${id}`)).body.request).toMatchObject({ state: 'denied' });
      // The stored record itself (the admin view never shows `token_jti`): no token was bound to it.
      expect((await ctx.harness.store.hashGet(keys.request('default', id)))?.token_jti).toBeUndefined();
      const trail = (await ctx.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as SeenEvent[];
      expect(trail.filter((event) => ['refused', 'denied', 'party_approved', 'approved', 'token_issued'].includes(event.type)).map((event) => [event.type, event.reason ?? event.detail?.cause])).toEqual([
        ['refused', 'wrong_binding_code'],
        ['denied', 'wrong_binding_code'],
      ]);
      expect(trail.find((event) => event.type === 'denied')).toMatchObject({ sub: ctx.customer.sub, channel: 'device', detail: { party: 'customer', cause: 'wrong_binding_code' } });
      const history = (await device(ctx.harness, ctx.customer, 'GET', '/history')).body.entries as { auth_req_id: string; denial: string }[];
      expect(history.find((entry) => entry.auth_req_id === id)?.denial).toBe('wrong_binding_code');
    });
  });
});
