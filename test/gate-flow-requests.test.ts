/** The approval gate end to end: denial, expiry, the same transaction asked again, polling intervals, and clients and tenants kept apart. */
import { createAgentClient } from '@countersign/agent';
import { describe, expect, it } from 'vitest';
import { payment } from './support/payment.ts';
import { errorOf } from './support/refusal.ts';
import { useGate } from './support/gate-flow.ts';

describe.each(['memory', 'redis'] as const)('the approval gate end to end (%s store)', (storeKind) => {
  const ctx = useGate(storeKind);
  const { approved } = ctx;

  it('answers access_denied after the person denies, and never issues a token', async () => {
    const asked = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() });
    expect((await ctx.harness.decide(ctx.customer, asked.auth_req_id, 'deny')).body.request.state).toBe('denied');
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    expect((await ctx.harness.admin('GET', `/requests/${asked.auth_req_id}`)).body.request.interval).toBe(5);
  });

  it('expires a request at its deadline, refuses a late approval and keeps answering expired_token for 10 minutes', async () => {
    const asked = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment(), requested_expiry: 60 });
    expect(asked.expires_in).toBe(60);
    const view = await ctx.harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: ctx.customer.cookie } });
    ctx.harness.clock.advance(60);
    const late = await ctx.customer.authenticator.authenticate(view.body.options.approve);
    const decision = await ctx.harness.call('POST', `/api/device/requests/${asked.auth_req_id}/decision`, { body: { decision: 'approve', response: late }, headers: { cookie: ctx.customer.cookie, origin: ctx.harness.issuer } });
    expect([decision.status, decision.body.error]).toEqual([400, 'expired_token']);
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
    ctx.harness.clock.advance(599);
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
    const audit = await ctx.harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(audit.body.events.filter((event: { type: string }) => event.type === 'expired')).toHaveLength(1);
  });

  it('returns the same auth_req_id for the same transaction_id and details, and refuses other details', async () => {
    const first = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() });
    const again = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() });
    expect(again.auth_req_id).toBe(first.auth_req_id);
    const error = await errorOf(ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment({ amount_minor: 49001 }) }));
    expect([error.code, error.status]).toEqual(['transaction_conflict', 409]);
  });

  it('answers slow_down to a poll inside the interval, but authorization_pending to the first poll', async () => {
    const asked = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() });
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'slow_down' });
    ctx.harness.clock.advance(9);
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'slow_down' });
    ctx.harness.clock.advance(15);
    expect(await ctx.agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
  });

  it('lets one of ten polls fired together through and answers slow_down to the other nine', async () => {
    const asked = await ctx.agent.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() });
    const results = await Promise.all(Array.from({ length: 10 }, () => ctx.agent.pollToken(asked.auth_req_id)));
    expect(results.filter((result) => result.status === 'pending')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'slow_down')).toHaveLength(9);
    // Every slow_down added 5 s for the later polls (CIBA Core §11): 5 + 9 × 5 = 50 s.
    expect((await ctx.harness.store.hashGet(`req:{default:${asked.auth_req_id}}`))?.interval).toBe('50');
  });

  it('keeps one client out of another client’s requests and approvals', async () => {
    const { token, auth_req_id } = await approved();
    const other = await ctx.harness.createClient('Other agent');
    const intruder = createAgentClient({ issuer: ctx.harness.issuer, clientId: other.client_id, clientSecret: other.client_secret, fetch: ctx.harness.fetch });
    expect((await errorOf(intruder.pollToken(auth_req_id))).code).toBe('invalid_grant');
    expect((await errorOf(intruder.getRequest(auth_req_id))).status).toBe(404);
    const error = await errorOf(intruder.redeem(token.access_token, payment()));
    expect([error.code, error.status]).toEqual(['unauthorized_client', 403]);
    expect((await ctx.agent.getRequest(auth_req_id)).state).toBe('approved');
  });

  it('refuses a user of another tenant as unknown_user_id, storing nothing', async () => {
    const created = await ctx.harness.admin('POST', '/clients', { name: 'Tenant B agent', tenant: 'tenant-b' });
    const tenantB = createAgentClient({ issuer: ctx.harness.issuer, clientId: created.body.client_id, clientSecret: created.body.client_secret, fetch: ctx.harness.fetch });
    expect((await errorOf(tenantB.requestApproval({ login_hint: ctx.customer.sub, authorization_details: payment() }))).code).toBe('unknown_user_id');
    const inbox = await ctx.harness.call('GET', '/api/device/requests', { headers: { cookie: ctx.customer.cookie } });
    expect(inbox.body.requests).toEqual([]);
  });
});
