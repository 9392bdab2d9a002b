import { createAgentClient } from '@countersign/agent';
import { createFakeOrderBook, createFakePaymentLedger, createRefundOrderTool } from '@countersign/example-refund-order';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHarness, type EnrolledUser, type Harness } from './support/harness.ts';

/**
 * The seed check: the example gated tool `refund_order` against a real server (real store,
 * real tokens, a real passkey ceremony through the device API), with an injected clock.
 */
describe('refund_order, gated by Countersign', () => {
  let harness: Harness;
  let customer: EnrolledUser;
  let tool: ReturnType<typeof createRefundOrderTool>;
  let payments: ReturnType<typeof createFakePaymentLedger>;
  let agent: ReturnType<typeof createAgentClient>;

  const args = { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Refund for order 1042' };

  beforeEach(async () => {
    harness = await createHarness({ store: 'redis' });
    customer = await harness.enrollUser('customer_1');
    const { client_id, client_secret } = await harness.createClient('Support agent');
    agent = createAgentClient({ issuer: harness.issuer, clientId: client_id, clientSecret: client_secret, fetch: harness.fetch });
    payments = createFakePaymentLedger();
    tool = createRefundOrderTool({
      countersign: agent,
      login_hint: customer.sub,
      payments,
      orders: createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' } }),
    });
  });

  afterEach(async () => {
    await harness.close();
  });

  /** Asks, has the customer approve on the phone, and fetches the token. */
  async function approvedToken(): Promise<{ auth_req_id: string; access_token: string }> {
    const asked = await tool.call(args);
    if (asked.status !== 'approval_required') throw new Error(`expected approval_required, got ${asked.status}`);
    const decided = await harness.decide(customer, asked.auth_req_id, 'approve');
    expect(decided.status).toBe(200);
    const polled = await agent.pollToken(asked.auth_req_id);
    if (polled.status !== 'approved') throw new Error(`expected approved, got ${polled.status}`);
    return { auth_req_id: asked.auth_req_id, access_token: polled.token.access_token };
  }

  it('returns a preview and refunds nothing when called without a token', async () => {
    const result = await tool.call(args);
    expect(result.status).toBe('approval_required');
    if (result.status !== 'approval_required') return;
    expect(result.preview.amount).toBe('EUR 490.00');
    expect(result.preview.payee).toEqual({ id: 'acct_77', name: 'ACME Ltd' });
    expect(payments.refunds).toHaveLength(0);
    expect((await agent.getRequest(result.auth_req_id)).state).toBe('pending');
  });

  it('refuses a token when the amount differs by one minor unit', async () => {
    const approval = await approvedToken();
    const result = await tool.call({ ...args, amount_minor: 49001, approval });
    expect(result).toMatchObject({ status: 'refused', error: 'approval_mismatch' });
    expect(payments.refunds).toHaveLength(0);
    expect((await agent.getRequest(approval.auth_req_id)).state).toBe('approved');
  });

  it('refunds once when the same token is used twice', async () => {
    const approval = await approvedToken();
    const first = await tool.call({ ...args, approval });
    const second = await tool.call({ ...args, approval });
    expect(first.status).toBe('refunded');
    expect(second).toMatchObject({ status: 'refused', error: 'already_redeemed' });
    expect(payments.refunds).toHaveLength(1);
    expect(payments.refunds[0]).toMatchObject({ order_id: '1042', amount_minor: 49000, currency: 'EUR' });
    const view = await agent.getRequest(approval.auth_req_id);
    expect(view.state).toBe('redeemed');
    expect(view.outcome).toMatchObject({ status: 'succeeded', reference: payments.refunds[0]!.refund_id });
  });

  it('refuses a token older than 10 minutes', async () => {
    const approval = await approvedToken();
    harness.clock.advance(601);
    const result = await tool.call({ ...args, approval });
    expect(result).toMatchObject({ status: 'refused', error: 'invalid_token' });
    expect(payments.refunds).toHaveLength(0);
  });
});
