import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from '../support/harness.ts';
import { approvedMandate, mandate, spend, spendPayment } from '../support/mandate.ts';
import { payment } from '../support/payment.ts';
import { basic } from '../support/raw-request.ts';

/**
 * Outcomes that never arrive (docs/audit.md): a redemption with no outcome report after
 * `OUTCOME_TIMEOUT` seconds is flagged in the audit as `outcome_unknown`, exactly once, by the
 * sweeper; a redemption whose outcome arrived in time never is, and a late outcome is still
 * recorded. Each spend of a standing mandate (docs/mandates.md) is a redemption of its own, and is
 * flagged the same way.
 */

describe.each(['memory', 'redis'] as const)('outcome_unknown (%s store)', (storeKind) => {
  let harness: Harness;
  let customer: EnrolledUser;
  let agent: AgentClient;

  beforeEach(async () => {
    harness = await createHarness({ store: storeKind, env: { OUTCOME_TIMEOUT: '120' } });
    customer = await harness.enrollUser('customer_1');
    const credentials = await harness.createClient('Refund agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: credentials.client_id, clientSecret: credentials.client_secret, fetch: harness.fetch });
  });
  afterEach(() => harness.close());

  async function redeemed(transactionId: string) {
    const details = payment({ transaction_id: transactionId });
    const asked = await agent.requestApproval({ login_hint: customer.sub, authorization_details: details });
    expect((await harness.decide(customer, asked.auth_req_id, 'approve')).status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`not approved: ${polled.status}`);
    const redemption = await agent.redeem(polled.token.access_token, details);
    return { auth_req_id: asked.auth_req_id, redemption_id: redemption.redemption_id };
  }

  async function auditOf(authReqId: string) {
    return (await harness.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events as { type: string; channel: string; detail?: Record<string, unknown> }[];
  }

  it('flags a redemption still without an outcome after OUTCOME_TIMEOUT, once, and still records a late outcome', async () => {
    const { auth_req_id, redemption_id } = await redeemed('txn_silent');
    harness.clock.advance(119);
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    expect((await auditOf(auth_req_id)).map((event) => event.type)).not.toContain('outcome_unknown');

    harness.clock.advance(1);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    harness.clock.advance(3600);
    expect(await harness.deps.sweeper.sweep()).toBe(0);

    const flags = (await auditOf(auth_req_id)).filter((event) => event.type === 'outcome_unknown');
    expect(flags).toHaveLength(1);
    expect(flags[0]).toMatchObject({ channel: 'system', sub: customer.sub, detail: { redemption_id, seconds_since_redeemed: 120 } });
    // Still unknown to the agent, until it reports.
    expect((await agent.getRequest(auth_req_id)).outcome).toBeNull();

    await agent.reportOutcome(redemption_id, { status: 'failed', reason: 'Card declined' });
    expect((await agent.getRequest(auth_req_id)).outcome).toEqual({ status: 'failed', reason: 'Card declined' });
    expect((await auditOf(auth_req_id)).map((event) => event.type).slice(-2)).toEqual(['outcome_unknown', 'outcome']);
  });

  it('never flags a redemption whose outcome arrived in time', async () => {
    const { auth_req_id, redemption_id } = await redeemed('txn_reported');
    harness.clock.advance(60);
    await agent.reportOutcome(redemption_id, { status: 'succeeded', reference: 're_1' });
    harness.clock.advance(3600);
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    expect((await auditOf(auth_req_id)).map((event) => event.type)).not.toContain('outcome_unknown');
  });

  it('flags each overdue redemption on its own deadline', async () => {
    const first = await redeemed('txn_first');
    harness.clock.advance(100);
    const second = await redeemed('txn_second');
    harness.clock.advance(20);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    expect((await auditOf(first.auth_req_id)).filter((event) => event.type === 'outcome_unknown')).toHaveLength(1);
    expect((await auditOf(second.auth_req_id)).filter((event) => event.type === 'outcome_unknown')).toHaveLength(0);
    harness.clock.advance(100);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    expect((await auditOf(second.auth_req_id)).filter((event) => event.type === 'outcome_unknown')).toHaveLength(1);
  });

  it('flags each spend of a mandate still without an outcome after OUTCOME_TIMEOUT, once, and never one reported in time', async () => {
    const client = await harness.createClient('Bill payer');
    const { token, auth_req_id } = await approvedMandate(harness, client, customer, mandate(harness.clock.now()));
    const report = (redemptionId: string, body: Record<string, unknown>) => harness.call('POST', `/redemptions/${redemptionId}/outcome`, { body, headers: { authorization: basic(client) } });
    const silent = (await spend(harness, client, token, spendPayment('bill_silent'))).body.redemption_id as string;
    const reported = (await spend(harness, client, token, spendPayment('bill_reported'))).body.redemption_id as string;
    harness.clock.advance(60);
    expect((await report(reported, { status: 'succeeded', reference: 'pay_1' })).status).toBe(200);
    harness.clock.advance(59);
    expect(await harness.deps.sweeper.sweep()).toBe(0);

    harness.clock.advance(1);
    expect(await harness.deps.sweeper.sweep()).toBe(1);
    expect(await harness.deps.sweeper.sweep()).toBe(0);
    harness.clock.advance(3600);
    expect(await harness.deps.sweeper.sweep()).toBe(0);

    const flags = (await auditOf(auth_req_id)).filter((event) => event.type === 'outcome_unknown');
    expect(flags).toEqual([expect.objectContaining({ channel: 'system', sub: customer.sub, detail: { redemption_id: silent, transaction_id: 'bill_silent', seconds_since_redeemed: 120 } })]);
    // A late outcome is still taken, after the flag.
    expect((await report(silent, { status: 'failed', reason: 'Card declined' })).status).toBe(200);
    expect((await auditOf(auth_req_id)).map((event) => event.type).slice(-2)).toEqual(['outcome_unknown', 'outcome']);
  });
});
