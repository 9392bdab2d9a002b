/** A message through every path a payment takes: a long body whose approval token is past 8 KB, and the size limit at /bc-authorize. */
import { describe, expect, it } from 'vitest';
import { message } from '../support/action-samples.ts';
import { useActionTypesFlow } from './support.ts';

describe.each(['memory', 'redis'] as const)('each new action type through every path a payment takes (%s store)', (storeKind) => {
  const ctx = useActionTypesFlow(storeKind);
  const { ask, redeem, approved } = ctx;

  describe('message', () => {
    it('redeems a message with a long body: its approval token, which carries the action, is longer than 8 KB', async () => {
      // 12,000 characters of body, well inside the type’s 20,000: the token (RFC 9068, the action in
      // its claims) is about 17 KB, and /redeem took tokens of at most 8,192 characters.
      const body = Array.from({ length: 250 }, (_, i) => `Line ${String(i).padStart(3, '0')} of the notice, as it will be sent out.`).join('\n');
      expect(body.length).toBeGreaterThan(10_000);
      const details = message({ transaction_id: 'msg_long', body });
      const { token } = await approved(details);
      expect(token.length).toBeGreaterThan(8192);
      const redeemed = await redeem(token, details);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body)).toEqual([200, 'redeemed']);
    });

    it('refuses at /bc-authorize a request too large to redeem, and redeems one just inside the limit', async () => {
      // /redeem's body holds the token (the action in base64url, 4/3 of it) and the action again:
      // two messages of 15,000 characters each were accepted and approved, yet their redeem was 413.
      const lines = (count: number) => Array.from({ length: count }, (_, i) => `Line ${String(i).padStart(3, '0')} of the notice, as it will be sent out.`).join('\n');
      const large = [...message({ transaction_id: 'msg_a', body: lines(310) }), ...message({ transaction_id: 'msg_b', body: lines(310) })];
      const refused = await ask(large);
      expect([refused.status, refused.body.error], JSON.stringify(refused.body)).toEqual([400, 'invalid_authorization_details']);
      expect(refused.body.error_description).toMatch(/^authorization_details: must be at most 24000 bytes as JCS \(RFC 8785\), so that its approval token and the action fit \/redeem; these are \d+$/);

      const inside = [...message({ transaction_id: 'msg_c', body: lines(240) }), ...message({ transaction_id: 'msg_d', body: lines(240) })];
      // 23,931 bytes as JCS: the largest request of two such messages the limit (24,000) takes.
      const { token } = await approved(inside);
      // The most /redeem may name besides: 20 records at their longest versions.
      const versions = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`record:${String(i).padStart(121, '0')}`, 'v'.repeat(128)]));
      const redeemed = await redeem(token, inside, versions);
      expect([redeemed.status, redeemed.body.status], JSON.stringify(redeemed.body).slice(0, 300)).toEqual([200, 'redeemed']);
    });
  });
});
