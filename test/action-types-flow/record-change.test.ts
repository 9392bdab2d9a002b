/** A record change through every path a payment takes: the record version it depends on at /redeem, and values with a fraction. */
import { describe, expect, it } from 'vitest';
import { answer, device, pollToken } from '../guarantees/policy-support.ts';
import { recordChange } from '../support/action-samples.ts';
import { basic } from '../support/raw-request.ts';
import { useActionTypesFlow } from './support.ts';

describe.each(['memory', 'redis'] as const)('each new action type through every path a payment takes (%s store)', (storeKind) => {
  const ctx = useActionTypesFlow(storeKind);
  const { redeem, clientView, approved } = ctx;

  describe('record_change', () => {
    it('refuses a redeem at another current version of the record with 409 stale_record, and redeems at the approved one', async () => {
      const { auth_req_id, token } = await approved(recordChange());
      const moved = await redeem(token, recordChange(), { 'campaign:cmp_4': '18' });
      expect([moved.status, moved.body.error, moved.body.records]).toEqual([409, 'stale_record', ['campaign:cmp_4']]);
      expect((await clientView(auth_req_id)).body.state).toBe('approved');
      const current = await redeem(token, recordChange(), { 'campaign:cmp_4': '17' });
      expect([current.status, current.body.status]).toEqual([200, 'redeemed']);
    });

    it('takes a value with a fraction as RFC 8785 writes it (0.15), and refuses 1.50 at /bc-authorize', async () => {
      const rate = (from: string, to: string, id: string) => `[{"type":"record_change","transaction_id":"${id}","record":{"kind":"campaign","id":"cmp_4"},"changes":[{"field":"commission_rate","from":${from},"to":${to}}],"purpose":"Raise commission"}]`;
      const propose = (json: string) =>
        ctx.harness.call('POST', '/bc-authorize', {
          body: new URLSearchParams({ scope: 'openid', login_hint: ctx.customer.sub, authorization_details: json }).toString(),
          headers: { authorization: basic(ctx.client), 'content-type': 'application/x-www-form-urlencoded' },
        });
      const accepted = await propose(rate('0.1', '0.15', 'chg_rate'));
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      const view = await device(ctx.harness, ctx.customer, 'GET', `/requests/${accepted.body.auth_req_id}`);
      expect(view.body.request.actions[0].changes).toEqual([{ field: 'commission_rate', from: { kind: 'number', text: '0.1' }, to: { kind: 'number', text: '0.15' } }]);
      for (const [from, to] of [
        ['1', '1.50'],
        ['1.50', '2'],
        ['0.1', '15e-2'],
      ]) {
        const refused = await propose(rate(from!, to!, 'chg_spelled'));
        expect([refused.status, refused.body.error], `${from} → ${to}`).toEqual([400, 'invalid_authorization_details']);
        expect(refused.body.error_description).toMatch(/authorization_details\[0\]\.changes\[0\]\.(from|to): numbers in a tool call's arguments or a record change's values must be written as RFC 8785/);
      }

      // Approved with 0.15, it redeems with 0.15, not with 0.150.
      await ctx.harness.drain();
      expect((await answer(ctx.harness, ctx.customer, accepted.body.auth_req_id, { decision: 'approve' })).status).toBe(200);
      const token = (await pollToken(ctx.harness, ctx.client, accepted.body.auth_req_id)).body.access_token as string;
      const body = (spelled: string) => `{"token":${JSON.stringify(token)},"authorization_details":${rate('0.1', spelled, 'chg_rate')}}`;
      const send = (text: string) => ctx.harness.call('POST', '/redeem', { body: text, headers: { authorization: basic(ctx.client), 'content-type': 'application/json' } });
      expect((await send(body('0.150'))).body.error).toBe('approval_mismatch');
      const redeemed = await send(body('0.15'));
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
    });
  });
});
