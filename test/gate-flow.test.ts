import { CountersignError } from '@countersign/shared';
import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';
import { payment } from './support/payment.ts';
import { errorOf } from './support/refusal.ts';

describe.each(['memory', 'redis'] as const)('the approval gate end to end (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind });
    customer = await harness.enrollUser('customer_1');
    const credentials = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  async function approved(details = payment()) {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details, binding_message: 'Order 1042' });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    return { ...asked, token: polled.token };
  }

  it('moves pending → approved → redeemed and records the outcome, with an audit event for each step', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), binding_message: 'Order 1042' });
    expect(asked.interval).toBe(5);
    expect(asked.expires_in).toBe(300);
    // 160 bits of entropy (CIBA Core §7.3 recommends 160, requires 128), base64url.
    expect(asked.auth_req_id).toMatch(/^[A-Za-z0-9_-]{27}$/);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });

    // The person opens the request once its push has reached them: the push (background work) goes first.
    await harness.drain();
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).body.request.state).toBe('approved');
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error('not approved');
    expect(polled.token.token_type).toBe('Bearer');
    expect(polled.token.expires_in).toBe(600);
    expect(polled.token.authorization_details).toEqual(payment());

    const redeemed = await agent.redeem(polled.token.access_token, payment());
    expect(redeemed).toMatchObject({ status: 'redeemed', idempotency_key: 'txn_1042', authorization_details: payment() });
    await agent.reportOutcome(redeemed.redemption_id, { status: 'succeeded', reference: 're_1' });
    expect(await agent.getRequest(asked.auth_req_id)).toMatchObject({ state: 'redeemed', outcome: { status: 'succeeded', reference: 're_1' } });

    await harness.deps.background.drain();
    const audit = await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(audit.body.events.map((event: { type: string }) => event.type)).toEqual(['proposed', 'pushed', 'viewed', 'approved', 'token_issued', 'redeemed', 'outcome']);
    expect(JSON.stringify(audit.body)).not.toContain(polled.token.access_token);
    expect(audit.body.events.at(-1)).toMatchObject({ type: 'outcome', detail: { status: 'succeeded', reference: 're_1' } });

    const conflicting = await errorOf(agent.reportOutcome(redeemed.redemption_id, { status: 'failed', reason: 'declined' }));
    expect([conflicting.code, conflicting.status]).toEqual(['outcome_conflict', 409]);
    const after = await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(after.body.events.at(-1)).toMatchObject({ type: 'refused', reason: 'outcome_conflict' });
  });

  it('gives exactly one of 50 concurrent redeems of one token the redemption', async () => {
    const { token } = await approved();
    const results = await Promise.all(
      Array.from({ length: 50 }, () =>
        agent.redeem(token.access_token, payment()).then(
          (ok) => ok,
          (error: CountersignError) => error,
        ),
      ),
    );
    const winners = results.filter((result) => !(result instanceof CountersignError));
    const losers = results.filter((result): result is CountersignError => result instanceof CountersignError);
    expect(winners).toHaveLength(1);
    expect(losers.map((error) => error.code)).toEqual(Array(49).fill('already_redeemed'));
    const winnerId = (winners[0] as { redemption_id: string }).redemption_id;
    for (const error of losers) expect(error.body?.redemption).toMatchObject({ redemption_id: winnerId, outcome: { status: 'unknown' } });
  });

  it('refuses a redeem whose action differs and leaves the approval redeemable', async () => {
    const { token, auth_req_id } = await approved();
    const error = await errorOf(agent.redeem(token.access_token, payment({ payee: { id: 'acct_66', name: 'ACME Ltd' } })));
    expect([error.code, error.status]).toEqual(['approval_mismatch', 400]);
    expect((await agent.getRequest(auth_req_id)).state).toBe('approved');
    expect((await agent.redeem(token.access_token, payment())).status).toBe('redeemed');
  });

  it('issues the token once: a second poll after approval is invalid_grant, and changes nothing', async () => {
    const { auth_req_id } = await approved();
    const before = (await harness.admin('GET', `/requests/${auth_req_id}`)).body.request;
    expect((await errorOf(agent.pollToken(auth_req_id))).code).toBe('invalid_grant');
    expect((await errorOf(agent.pollToken(auth_req_id))).code).toBe('invalid_grant');
    // Polls refused at once count for no poll rate: the interval is not raised as for slow_down.
    expect((await harness.admin('GET', `/requests/${auth_req_id}`)).body.request).toEqual(before);
  });

  it('answers access_denied after the person denies, and never issues a token', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    expect((await harness.decide(customer, asked.auth_req_id, 'deny')).body.request.state).toBe('denied');
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'denied' });
    expect((await harness.admin('GET', `/requests/${asked.auth_req_id}`)).body.request.interval).toBe(5);
  });

  it('expires a request at its deadline, refuses a late approval and keeps answering expired_token for 10 minutes', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment(), requested_expiry: 60 });
    expect(asked.expires_in).toBe(60);
    const view = await harness.call('GET', `/api/device/requests/${asked.auth_req_id}`, { headers: { cookie: customer.cookie } });
    harness.clock.advance(60);
    const late = await customer.authenticator.authenticate(view.body.options.approve);
    const decision = await harness.call('POST', `/api/device/requests/${asked.auth_req_id}/decision`, { body: { decision: 'approve', response: late }, headers: { cookie: customer.cookie, origin: harness.issuer } });
    expect([decision.status, decision.body.error]).toEqual([400, 'expired_token']);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
    harness.clock.advance(599);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'expired' });
    const audit = await harness.admin('GET', `/audit?auth_req_id=${asked.auth_req_id}`);
    expect(audit.body.events.filter((event: { type: string }) => event.type === 'expired')).toHaveLength(1);
  });

  it('refuses an approval token after its lifetime and moves the request to expired', async () => {
    const { token, auth_req_id } = await approved();
    harness.clock.advance(600);
    expect((await errorOf(agent.redeem(token.access_token, payment()))).code).toBe('invalid_token');
    expect((await agent.getRequest(auth_req_id)).state).toBe('expired');
  });

  it('returns the same auth_req_id for the same transaction_id and details, and refuses other details', async () => {
    const first = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    const again = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    expect(again.auth_req_id).toBe(first.auth_req_id);
    const error = await errorOf(agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ amount_minor: 49001 }) }));
    expect([error.code, error.status]).toEqual(['transaction_conflict', 409]);
  });

  it('answers slow_down to a poll inside the interval, but authorization_pending to the first poll', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'slow_down' });
    harness.clock.advance(9);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'slow_down' });
    harness.clock.advance(15);
    expect(await agent.pollToken(asked.auth_req_id)).toEqual({ status: 'pending' });
  });

  it('lets one of ten polls fired together through and answers slow_down to the other nine', async () => {
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: payment() });
    const results = await Promise.all(Array.from({ length: 10 }, () => agent.pollToken(asked.auth_req_id)));
    expect(results.filter((result) => result.status === 'pending')).toHaveLength(1);
    expect(results.filter((result) => result.status === 'slow_down')).toHaveLength(9);
    // Every slow_down added 5 s for the later polls (CIBA Core §11): 5 + 9 × 5 = 50 s.
    expect((await harness.store.hashGet(`req:{default:${asked.auth_req_id}}`))?.interval).toBe('50');
  });

  it('keeps one client out of another client’s requests and approvals', async () => {
    const { token, auth_req_id } = await approved();
    const other = await harness.createClient('Other agent');
    const intruder = createAgentClient({ issuer: harness.issuer, clientId: other.client_id, clientSecret: other.client_secret, fetch: harness.fetch });
    expect((await errorOf(intruder.pollToken(auth_req_id))).code).toBe('invalid_grant');
    expect((await errorOf(intruder.getRequest(auth_req_id))).status).toBe(404);
    const error = await errorOf(intruder.redeem(token.access_token, payment()));
    expect([error.code, error.status]).toEqual(['unauthorized_client', 403]);
    expect((await agent.getRequest(auth_req_id)).state).toBe('approved');
  });

  it('refuses a user of another tenant as unknown_user_id, storing nothing', async () => {
    const created = await harness.admin('POST', '/clients', { name: 'Tenant B agent', tenant: 'tenant-b' });
    const tenantB = createAgentClient({ issuer: harness.issuer, clientId: created.body.client_id, clientSecret: created.body.client_secret, fetch: harness.fetch });
    expect((await errorOf(tenantB.requestApproval({ login_hint: customer.sub, authorization_details: payment() }))).code).toBe('unknown_user_id');
    const inbox = await harness.call('GET', '/api/device/requests', { headers: { cookie: customer.cookie } });
    expect(inbox.body.requests).toEqual([]);
  });
});
