import { type AgentClient, buildApprovalRequest, CountersignError, executeApproved, formatAmount, parseArguments, type PaymentDetails, z } from '@countersign/agent';
import { defineRefundOrder, type RefundOrderGatedTool } from './define-refund-order.ts';
import type { OrderLookup, PaymentSystem, RefundApproval, RefundOrderArgs, RefundOrderResult } from './types.ts';

/** Options of {@link createRefundOrderTool}. */
export interface RefundOrderToolOptions {
  /** The agent client; only `requestApproval`, `redeem` and `reportOutcome` are used. */
  countersign: Pick<AgentClient, 'requestApproval' | 'redeem' | 'reportOutcome'>;
  /** The `sub` of the person who approves refunds. */
  login_hint: string;
  /** Executes the refund once approved. */
  payments: PaymentSystem;
  /** Says who paid for an order: the refund's payee comes from here, never from the arguments. */
  orders: OrderLookup;
}

/** `refund_order` driven by hand, in two turns. */
export interface RefundOrderTool {
  /** The gated tool underneath, for a tool runner (`createToolRunner`). */
  readonly tool: RefundOrderGatedTool;
  /**
   * Runs `refund_order`. Without `approval`: asks Countersign for approval and refunds nothing.
   * With `approval`: redeems it against the action rebuilt from these arguments, then refunds.
   * @throws CountersignError `invalid_request` for malformed arguments, `not_found` for an unknown
   *   order; any CountersignError of `requestApproval` (e.g. `transaction_conflict` when this order
   *   already has a refund request for other details); a 5xx or network error of `redeem`.
   */
  call(args: RefundOrderArgs): Promise<RefundOrderResult>;
}

const approvalArgument = z.strictObject({ auth_req_id: z.string().min(1), access_token: z.string().min(1) });

/**
 * Creates `refund_order` for an agent that holds the approval token itself: the same gated tool a
 * tool runner runs ({@link defineRefundOrder}), in two explicit turns (docs/design.md guarantee 1).
 * The first call only asks a person to approve the exact refund; the second, with the approval
 * token, redeems it against the refund rebuilt from its own arguments and only then moves money,
 * with the redemption's idempotency key. A tool runner does the same and also waits and resumes;
 * prefer it for a model.
 *
 * If a model changes one minor unit between the turns, the hashes differ and the server refuses
 * (`approval_mismatch`, guarantee 3) before any money moves.
 *
 * @example
 * ```ts
 * const refund = createRefundOrderTool({ countersign, login_hint: 'alice', payments, orders });
 * const first = await refund.call({ order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged' });
 * // first.status === 'approval_required'; wait for the person, then:
 * const decision = await countersign.waitForDecision(first.auth_req_id, { interval: first.interval });
 * const second = await refund.call({ order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged',
 *   approval: { auth_req_id: first.auth_req_id, access_token: decision.token.access_token } });
 * ```
 */
export function createRefundOrderTool(options: RefundOrderToolOptions): RefundOrderTool {
  const { countersign } = options;
  const tool = defineRefundOrder(options);

  async function call(input: RefundOrderArgs): Promise<RefundOrderResult> {
    if (typeof input !== 'object' || input === null) throw new CountersignError('invalid_request', 'refund_order: arguments must be an object');
    const { approval: rawApproval, ...rest } = input;
    const args = parseArguments(tool, rest);
    if (rawApproval === undefined) return propose(args);
    const approval = approvalArgument.safeParse(rawApproval);
    if (!approval.success) throw new CountersignError('invalid_request', 'refund_order: approval must be {auth_req_id, access_token}');
    return execute(args, approval.data);
  }

  async function propose(args: RefundOrderArgs): Promise<RefundOrderResult> {
    const request = await buildApprovalRequest(tool, args, undefined);
    const { auth_req_id, expires_in, interval } = await countersign.requestApproval(request);
    const payment = request.authorization_details[0] as PaymentDetails;
    const amount = formatAmount(payment.amount_minor, payment.currency).formatted_code;
    return {
      status: 'approval_required',
      auth_req_id,
      expires_in,
      interval,
      preview: { title: `Refund ${amount} to ${payment.payee.name}`, amount, payee: payment.payee, purpose: payment.purpose },
    };
  }

  async function execute(args: RefundOrderArgs, approval: RefundApproval): Promise<RefundOrderResult> {
    const result = await executeApproved({ client: countersign, tool, args, context: undefined, access_token: approval.access_token });
    switch (result.status) {
      case 'executed':
        return {
          status: 'refunded',
          refund_id: result.result.refund_id,
          redemption_id: result.outcome.redemption_id,
          outcome_reported: result.outcome.reported,
        };
      case 'failed':
        return { status: 'refund_failed', redemption_id: result.outcome.redemption_id, reason: result.reason, outcome_reported: result.outcome.reported };
      case 'refused':
        return { status: 'refused', error: result.error, error_description: result.error_description };
    }
  }

  return { tool, call };
}
