/** Each action type beyond payment, case by case: proposed, pushed, shown, approved, redeemed once with exactly its details, and refused otherwise. */
import { detailsHash, type HistoryEntry, type RequestDisplay } from '@countersign/shared';
import { describe, expect, it } from 'vitest';
import { device, pollToken } from '../guarantees/policy-support.ts';
import { basic } from '../support/raw-request.ts';
import { CASES, useActionTypesFlow } from './support.ts';

describe.each(['memory', 'redis'] as const)('each new action type through every path a payment takes (%s store)', (storeKind) => {
  const ctx = useActionTypesFlow(storeKind);
  const { ask, redeem, clientView, trail, approve, approved } = ctx;

  describe.each(CASES)('$type', (c) => {
    it('is proposed, pushed, shown as the server computes it, approved with the passkey, redeemed once with exactly its details, and its outcome is seen everywhere', async () => {
      const asked = await ask(c.details);
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
      const id = asked.body.auth_req_id as string;
      // Elevated (irreversible, many): number matching, so the agent gets a code to show; standard: none.
      if (c.tier === 'elevated') expect(asked.body.binding_code).toMatch(/^[1-9][0-9]$/);
      else expect(asked.body).not.toHaveProperty('binding_code');

      // Two turns: only stored and pushed. The push is one line, the type's own summary.
      await ctx.harness.drain();
      expect((await pollToken(ctx.harness, ctx.client, id)).body.error).toBe('authorization_pending');
      expect(ctx.sent.map((push) => push.payload.auth_req_id)).toEqual([id]);

      // The phone's inbox: the display the server computed for this type.
      const inbox = (await device(ctx.harness, ctx.customer, 'GET', '/requests')).body.requests as RequestDisplay[];
      expect(inbox.map((request) => request.auth_req_id)).toEqual([id]);
      const [shown] = inbox;
      expect(shown!).toMatchObject({ state: 'pending', client_name: 'Ops agent', tier: c.tier, totals: [] });
      expect(shown!.actions).toHaveLength(1);
      expect(shown!.actions[0]).toMatchObject(c.shown);
      expect(ctx.sent[0]!.payload.summary).toBe(`Ops agent: ${shown!.actions[0]!.summary}`);
      const opened = await device(ctx.harness, ctx.customer, 'GET', `/requests/${id}`);
      expect(opened.body.request.actions).toEqual(shown!.actions);
      expect(opened.body.request.number_matching === null).toBe(c.tier === 'standard');

      await approve(id, asked.body.binding_code);
      const polled = await pollToken(ctx.harness, ctx.client, id);
      expect(polled.status, JSON.stringify(polled.body)).toBe(200);
      expect(polled.body).toMatchObject({ token_type: 'Bearer', authorization_details: c.details });
      expect(polled.body.expires_in).toBe(c.tier === 'elevated' ? 300 : 600);
      // The approval token (RFC 9068) carries the action and its hash, the one stored with the request.
      const claims = JSON.parse(Buffer.from(polled.body.access_token.split('.')[1], 'base64url').toString());
      const stored = (await ctx.harness.admin('GET', `/requests/${id}`)).body.request;
      expect(claims).toMatchObject({ authorization_details: c.details, details_hash: await detailsHash(c.details) });
      expect(stored.details_hash).toBe(claims.details_hash);

      const redeemed = await redeem(polled.body.access_token, c.details, c.versions);
      expect(redeemed.status, JSON.stringify(redeemed.body)).toBe(200);
      expect(redeemed.body).toMatchObject({ status: 'redeemed', idempotency_key: (c.details[0] as { transaction_id: string }).transaction_id, authorization_details: c.details });
      const again = await redeem(polled.body.access_token, c.details, c.versions);
      expect([again.status, again.body.error]).toEqual([409, 'already_redeemed']);
      expect(again.body.redemption).toMatchObject({ redemption_id: redeemed.body.redemption_id, outcome: { status: 'unknown' } });

      const reported = await ctx.harness.call('POST', `/redemptions/${redeemed.body.redemption_id}/outcome`, { body: { status: 'succeeded', reference: `done_${c.type}` }, headers: { authorization: basic(ctx.client) } });
      expect(reported.status, JSON.stringify(reported.body)).toBe(200);
      expect((await clientView(id)).body).toMatchObject({ auth_req_id: id, state: 'redeemed', outcome: { status: 'succeeded', reference: `done_${c.type}` } });

      await ctx.harness.drain();
      expect(await trail(id)).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'redeemed', 'refused', 'outcome']);
      const [entry] = (await device(ctx.harness, ctx.customer, 'GET', '/history')).body.entries as HistoryEntry[];
      expect(entry).toMatchObject({ auth_req_id: id, state: 'redeemed', tier: c.tier, outcome: { status: 'succeeded', reference: `done_${c.type}` }, your_part: { decision: 'approved', party: 'customer' } });
      expect(entry!.actions[0]).toMatchObject(c.shown);
    });

    it('refuses a redeem with one field changed (approval_mismatch), changes nothing, and then redeems the approved action once', async () => {
      const { auth_req_id, token } = await approved(c.details);
      const refused = await redeem(token, c.changed, c.versions);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([400, 'approval_mismatch']);
      expect((await clientView(auth_req_id)).body.state).toBe('approved');
      const redeemed = await redeem(token, c.details, c.versions);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
      expect((await redeem(token, c.details, c.versions)).body.error).toBe('already_redeemed');
      const events = await trail(auth_req_id);
      expect(events.slice(events.indexOf('token_issued'))).toEqual(['token_issued', 'refused', 'redeemed', 'refused']);
    });

    it('answers the same auth_req_id for the same transaction_id and details, and 409 transaction_conflict for other details', async () => {
      const first = await ask(c.details);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      const again = await ask(c.details);
      expect([again.status, again.body.auth_req_id]).toEqual([200, first.body.auth_req_id]);
      const other = await ask(c.changed);
      expect([other.status, other.body.error], JSON.stringify(other.body)).toEqual([409, 'transaction_conflict']);
      await ctx.harness.drain();
      expect(((await device(ctx.harness, ctx.customer, 'GET', '/requests')).body.requests as RequestDisplay[]).map((request) => request.auth_req_id)).toEqual([first.body.auth_req_id]);
    });
  });
});
