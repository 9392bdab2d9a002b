import { type AgentClient, CountersignError, type RedeemResponse } from '@countersign/agent';
import { describe, expect, it, vi } from 'vitest';
import { createFakeOrderBook } from './fake-order-book.ts';
import { createFakePaymentLedger } from './fake-payment-ledger.ts';
import { createRefundOrderTool } from './refund-order-tool.ts';

// The tool's own logic against a stubbed agent client. The real gate (hashes, single use, expiry)
// is checked end to end against the server by the seed tests in test/.

const args = { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Refund for order 1042' };
const expectedDetails = [{ type: 'payment', transaction_id: 'refund_1042', amount_minor: 49000, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' }];

function setUp(redeem: AgentClient['redeem'] = async (_token, details) => redeemed(details)) {
  const countersign = {
    requestApproval: vi.fn<AgentClient['requestApproval']>(async () => ({ auth_req_id: 'req_1', expires_in: 300, interval: 5 })),
    redeem: vi.fn(redeem),
    reportOutcome: vi.fn<AgentClient['reportOutcome']>(async () => {}),
  };
  const payments = createFakePaymentLedger();
  const orders = createFakeOrderBook({ '1042': { id: 'acct_77', name: 'ACME Ltd' } });
  const tool = createRefundOrderTool({ countersign, login_hint: 'alice', payments, orders });
  return { countersign, payments, tool };
}

function redeemed(authorization_details: RedeemResponse['authorization_details']): RedeemResponse {
  return { status: 'redeemed', redemption_id: 'red_1', idempotency_key: 'idem_1', authorization_details, redeemed_at: '2025-01-01T00:00:00.000Z' };
}

describe('refund_order', () => {
  it('asks for approval of the exact refund and refunds nothing when called without approval', async () => {
    const { countersign, payments, tool } = setUp();
    const result = await tool.call(args);
    expect(result).toEqual({
      status: 'approval_required',
      auth_req_id: 'req_1',
      expires_in: 300,
      interval: 5,
      preview: { title: 'Refund EUR 490.00 to ACME Ltd', amount: 'EUR 490.00', payee: { id: 'acct_77', name: 'ACME Ltd' }, purpose: 'Refund for order 1042' },
    });
    expect(countersign.requestApproval).toHaveBeenCalledWith({ login_hint: 'alice', authorization_details: expectedDetails });
    expect(countersign.redeem).not.toHaveBeenCalled();
    expect(payments.refunds).toEqual([]);
  });

  it('redeems against the action rebuilt from its own arguments, refunds with the idempotency key and reports success', async () => {
    const { countersign, payments, tool } = setUp();
    const result = await tool.call({ ...args, approval: { auth_req_id: 'req_1', access_token: 'token' } });
    expect(result).toEqual({ status: 'refunded', refund_id: 're_1', redemption_id: 'red_1', outcome_reported: true });
    expect(countersign.redeem).toHaveBeenCalledWith('token', expectedDetails);
    expect(payments.refunds).toEqual([{ refund_id: 're_1', order_id: '1042', amount_minor: 49000, currency: 'EUR', idempotency_key: 'idem_1' }]);
    expect(countersign.reportOutcome).toHaveBeenCalledWith('red_1', { status: 'succeeded', reference: 're_1' });
  });

  it('refunds nothing and reports nothing when the redemption is refused', async () => {
    const { countersign, payments, tool } = setUp(async () => {
      throw new CountersignError('approval_mismatch', 'the action differs from the approved one');
    });
    const result = await tool.call({ ...args, amount_minor: 49001, approval: { auth_req_id: 'req_1', access_token: 'token' } });
    expect(result).toEqual({ status: 'refused', error: 'approval_mismatch', error_description: 'the action differs from the approved one' });
    expect(payments.refunds).toEqual([]);
    expect(countersign.reportOutcome).not.toHaveBeenCalled();
  });

  it('lets a server error of redeem propagate rather than call it a refusal', async () => {
    const { payments, tool } = setUp(async () => {
      throw new CountersignError('server_error', 'boom');
    });
    await expect(tool.call({ ...args, approval: { auth_req_id: 'req_1', access_token: 'token' } })).rejects.toMatchObject({ code: 'server_error' });
    expect(payments.refunds).toEqual([]);
  });

  it('reports a failed outcome when the payment system fails', async () => {
    const { countersign, payments, tool } = setUp();
    payments.failNextRefund('card expired');
    const result = await tool.call({ ...args, approval: { auth_req_id: 'req_1', access_token: 'token' } });
    expect(result).toEqual({ status: 'refund_failed', redemption_id: 'red_1', reason: 'card expired', outcome_reported: true });
    expect(countersign.reportOutcome).toHaveBeenCalledWith('red_1', { status: 'failed', reason: 'card expired' });
  });

  it('refuses unknown arguments, a malformed amount and an unknown order before asking anyone', async () => {
    const { countersign, tool } = setUp();
    await expect(tool.call({ ...args, payee: 'acct_evil' } as never)).rejects.toMatchObject({ code: 'invalid_request' });
    await expect(tool.call({ ...args, amount_minor: 1.5 })).rejects.toMatchObject({ code: 'invalid_request', message: /amount_minor/ });
    await expect(tool.call({ ...args, currency: 'XYZ' })).rejects.toMatchObject({ code: 'invalid_request', message: /currency/ });
    await expect(tool.call({ ...args, order_id: '9999' })).rejects.toMatchObject({ code: 'not_found' });
    expect(countersign.requestApproval).not.toHaveBeenCalled();
  });
});

describe('fake payment ledger', () => {
  it('treats a repeated idempotency key as the same refund', async () => {
    const ledger = createFakePaymentLedger();
    const request = { order_id: '1042', amount_minor: 100, currency: 'EUR', idempotency_key: 'k1' };
    expect(await ledger.refund(request)).toEqual(await ledger.refund(request));
    expect(ledger.refunds).toHaveLength(1);
    await expect(ledger.refund({ ...request, amount_minor: 101 })).rejects.toThrow(/idempotency key/);
  });
});
