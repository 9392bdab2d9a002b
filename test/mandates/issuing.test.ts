/** Standing mandates (docs/mandates.md): the dates checked at /bc-authorize, and a mandate token that lasts until the mandate's end. */
import { describe, expect, it } from 'vitest';
import { bcAuthorize, device } from '../guarantees/policy-support.ts';
import { instant, mandate, spendPayment } from '../support/mandate.ts';
import { useMandates } from './support.ts';

describe('standing mandates (redis store)', () => {
  const ctx = useMandates();
  const { now, travel, approve, pay } = ctx;

  describe('at /bc-authorize, the dates against the clock', () => {
    it.each([
      ['an end in the past', (t: number) => ({ starts_at: instant(t - 3_600_000), ends_at: instant(t - 1000) }), /ends_at .* must be in the future/],
      ['a start more than a day ago', (t: number) => ({ starts_at: instant(t - 86_400_000 - 5000) }), /starts_at .* at most one day in the past/],
      ['a life longer than the policy allows (400 days)', (t: number) => ({ ends_at: instant(t + 400 * 86_400_000 + 5000) }), /at most 34560000 seconds \(400 days\)/],
    ])('refuses %s with invalid_authorization_details, storing nothing', async (_, dates, description) => {
      const asked = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: mandate(now(), dates(now())) });
      expect([asked.status, asked.body.error]).toEqual([400, 'invalid_authorization_details']);
      expect(asked.body.error_description).toMatch(description);
      expect((await device(ctx.harness, ctx.customer, 'GET', '/mandates')).body.mandates).toEqual([]);
    });
    it('accepts a start up to a day ago and a life of exactly 400 days', async () => {
      const start = now() - 86_400_000 + 5000;
      const asked = await bcAuthorize(ctx.harness, ctx.client, { login_hint: ctx.customer.sub, details: mandate(now(), { starts_at: instant(start), ends_at: instant(start + 400 * 86_400_000) }) });
      expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    });
  });

  it('issues a mandate token that lasts until the mandate ends, not the usual token lifetime', async () => {
    const details = mandate(now());
    const { token, expires_in, auth_req_id } = await approve(details);
    const claims = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString());
    expect(claims.exp).toBe(Date.parse((details[0] as { ends_at: string }).ends_at) / 1000);
    expect(expires_in).toBeGreaterThan(30 * 86_400 - 60);
    // Still approved after the usual lifetime (600 s) passed: it is a standing permission.
    travel(now() + 3_600_000);
    expect((await pay(token, spendPayment('bill_1'))).status).toBe(200);
    expect((await ctx.harness.admin('GET', `/requests/${auth_req_id}`)).body.request.state).toBe('approved');
  });
});
