/**
 * The named tests of guarantees 6 to 9 of docs/design.md ("The nine guarantees"): TTL and ownership,
 * compare-and-swap consumption, outcome reporting and the audit.
 */
import { CountersignError } from '@countersign/shared';
import { createAgentClient } from '@countersign/agent';
import { describe, expect, it } from 'vitest';
import { keys } from '@countersign/server';
import { payment } from '../../support/payment.ts';
import { useDesignGuarantees } from './support.ts';

describe('the guarantees of docs/design.md', () => {
  const ctx = useDesignGuarantees();
  const { ask, refusal, approvedToken } = ctx;

  it('guarantee 6, TTL and ownership: requests expire (300 s by default, at most 600 s), tokens after 600 s, and only the requesting client redeems', async () => {
    const asked = await ask();
    expect(asked.expires_in).toBe(300);
    expect((await refusal(ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment({ transaction_id: 'txn_2' }), requested_expiry: 601 }))).code).toBe('invalid_request');
    const { token, id } = await approvedToken(payment({ transaction_id: 'txn_3' }));
    expect(token.expires_in).toBe(600);
    const other = await ctx.harness.createClient('Other agent');
    const intruder = createAgentClient({ issuer: ctx.harness.issuer, clientId: other.client_id, clientSecret: other.client_secret, fetch: ctx.harness.fetch });
    expect((await refusal(intruder.redeem(token.access_token, payment({ transaction_id: 'txn_3' })))).code).toBe('unauthorized_client');
    // A client of another tenant is refused too, and the attempt is in the owner's trail, not in its own tenant's.
    const foreign = (await ctx.harness.admin('POST', '/clients', { name: 'Agent of tenant b', tenant: 'tenant-b' })).body as { client_id: string; client_secret: string };
    const outsider = createAgentClient({ issuer: ctx.harness.issuer, clientId: foreign.client_id, clientSecret: foreign.client_secret, fetch: ctx.harness.fetch });
    expect((await refusal(outsider.redeem(token.access_token, payment({ transaction_id: 'txn_3' })))).code).toBe('unauthorized_client');
    const owners = (await ctx.harness.admin('GET', `/audit?auth_req_id=${id}`)).body.events as { type: string; reason?: string; client_id?: string; detail?: Record<string, unknown> }[];
    expect(owners.filter((event) => event.type === 'refused').map(({ reason, client_id, detail }) => ({ reason, client_id, tenant: detail?.client_tenant }))).toEqual([
      { reason: 'unauthorized_client', client_id: other.client_id, tenant: undefined },
      { reason: 'unauthorized_client', client_id: foreign.client_id, tenant: 'tenant-b' },
    ]);
    expect((await ctx.harness.admin('GET', `/audit?auth_req_id=${id}&tenant=tenant-b`)).body.events).toEqual([]);
    // A token that verifies for an approval whose record is gone (a Redis that lost it) is refused
    // invalid_token, and the attempt is in that request's trail: its id came from a verified token.
    const lost = await approvedToken(payment({ transaction_id: 'txn_4' }));
    expect(await ctx.harness.store.delete(keys.request('default', lost.id))).toBe(true);
    expect((await refusal(ctx.agent.redeem(lost.token.access_token, payment({ transaction_id: 'txn_4' })))).code).toBe('invalid_token');
    const lostTrail = (await ctx.harness.admin('GET', `/audit?auth_req_id=${lost.id}`)).body.events as { type: string; reason?: string; client_id?: string }[];
    expect(lostTrail.at(-1)).toMatchObject({ type: 'refused', reason: 'invalid_token', client_id: ctx.agent.clientId });
    ctx.harness.clock.advance(600);
    expect((await refusal(ctx.agent.redeem(token.access_token, payment({ transaction_id: 'txn_3' })))).code).toBe('invalid_token');
    expect((await ctx.agent.getRequest(id)).state).toBe('expired');
  });

  it('guarantee 7, compare-and-swap consumption: of 50 concurrent redeems one wins; the rest get already_redeemed with the original record', async () => {
    const { token } = await approvedToken();
    const results = await Promise.all(Array.from({ length: 50 }, () => ctx.agent.redeem(token.access_token, payment()).catch((error: CountersignError) => error)));
    const winners = results.filter((result) => !(result instanceof CountersignError)) as { redemption_id: string }[];
    expect(winners).toHaveLength(1);
    for (const loser of results.filter((result) => result instanceof CountersignError) as CountersignError[]) {
      expect([loser.code, loser.status]).toEqual(['already_redeemed', 409]);
      expect(loser.body?.redemption).toMatchObject({ redemption_id: winners[0]!.redemption_id });
    }
  });

  it('guarantee 8, outcome reporting: the executor reports, the client reads it back and the device shows it', async () => {
    const { token, id } = await approvedToken();
    const redeemed = await ctx.agent.redeem(token.access_token, payment());
    expect((await ctx.agent.getRequest(id)).outcome).toBeNull();
    await ctx.agent.reportOutcome(redeemed.redemption_id, { status: 'failed', reason: 'card declined' });
    expect((await ctx.agent.getRequest(id)).outcome).toEqual({ status: 'failed', reason: 'card declined' });
    const onDevice = await ctx.harness.call('GET', `/api/device/requests/${id}`, { headers: { cookie: ctx.customer.cookie } });
    expect(onDevice.body.request.outcome).toEqual({ status: 'failed', reason: 'card declined' });
  });

  it('guarantee 9, audit: every gate decision is an append-only event with who, what, when and channel', async () => {
    const { token, id } = await approvedToken();
    await refusal(ctx.agent.redeem(token.access_token, payment({ amount_minor: 1 })));
    const redeemed = await ctx.agent.redeem(token.access_token, payment());
    await ctx.agent.reportOutcome(redeemed.redemption_id, { status: 'succeeded' });
    const { events } = (await ctx.harness.admin('GET', `/audit?auth_req_id=${id}`)).body;
    expect(events.map((event: { type: string; reason?: string }) => (event.reason ? `${event.type}:${event.reason}` : event.type))).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'refused:approval_mismatch', 'redeemed', 'outcome']);
    for (const event of events) {
      expect(event).toMatchObject({ tenant: 'default', auth_req_id: id, channel: expect.any(String), at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    }
    expect(events.find((event: { type: string }) => event.type === 'approved')).toMatchObject({ sub: ctx.customer.sub, channel: 'device', credential_id: ctx.customer.authenticator.credentialId });
    expect(events.find((event: { type: string }) => event.type === 'redeemed')).toMatchObject({ client_id: ctx.clientId, channel: 'agent' });
  });
});
