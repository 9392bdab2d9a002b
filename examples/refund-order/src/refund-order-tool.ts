import {
  CountersignError,
  formatAmount,
  paymentDetails,
  type AgentClient,
  type OutcomeReport,
  type PaymentDetails,
} from '@countersign/shared';
import { refundOrderDefinition } from './refund-order-definition.ts';
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

/** The `refund_order` tool: its definition and its handler. */
export interface RefundOrderTool {
  readonly definition: typeof refundOrderDefinition;
  /**
   * Runs `refund_order`. Without `approval`: asks Countersign for approval and refunds nothing.
   * With `approval`: redeems it against the action rebuilt from these arguments, then refunds.
   * @throws CountersignError `invalid_request` for malformed arguments, `not_found` for an unknown
   *   order; any CountersignError of `requestApproval` (e.g. `transaction_conflict` when this order
   *   already has a refund request for other details); a 5xx or network error of `redeem`.
   */
  call(args: RefundOrderArgs): Promise<RefundOrderResult>;
}

/** Arguments the tool accepts; anything else is refused rather than ignored. */
const ARGUMENTS = new Set(['order_id', 'amount_minor', 'currency', 'reason', 'approval']);
/** `'refund_' + order_id` must still be a 64-character identifier. */
const ORDER_ID = /^[A-Za-z0-9._:-]{1,57}$/;
/** The outcome report's `reason` is at most 500 characters (shared `outcomeReport`). */
const MAX_REASON = 500;

/**
 * Creates `refund_order`, an example of a tool gated by Countersign. It takes two turns
 * (DESIGN.md guarantee 1): the first call only asks a person to approve the exact refund; the
 * second, with the approval token, redeems the token against the refund rebuilt from its own
 * arguments and only then moves money, with the redemption's idempotency key.
 *
 * The action is always rebuilt from the call's arguments and the order system, never read back
 * from the token or the server: if a model changes one minor unit between the turns, the hashes
 * differ and the server refuses (`approval_mismatch`, guarantee 3).
 *
 * @example
 * ```ts
 * const tool = createRefundOrderTool({ countersign, login_hint: 'alice', payments, orders });
 * const first = await tool.call({ order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged' });
 * // first.status === 'approval_required'; wait for the person, then:
 * const decision = await countersign.waitForDecision(first.auth_req_id, { interval: first.interval });
 * const second = await tool.call({ order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged',
 *   approval: { auth_req_id: first.auth_req_id, access_token: decision.token.access_token } });
 * ```
 */
export function createRefundOrderTool(options: RefundOrderToolOptions): RefundOrderTool {
  const { countersign, login_hint, payments, orders } = options;

  async function call(args: RefundOrderArgs): Promise<RefundOrderResult> {
    const approval = checkArguments(args);
    const details = await buildDetails(orders, args);
    return approval ? execute(args.order_id, details, approval) : propose(details);
  }

  async function propose(details: [PaymentDetails]): Promise<RefundOrderResult> {
    const { auth_req_id, expires_in, interval } = await countersign.requestApproval({ login_hint, authorization_details: details });
    const [payment] = details;
    const amount = formatAmount(payment.amount_minor, payment.currency).formatted_code;
    return {
      status: 'approval_required',
      auth_req_id,
      expires_in,
      interval,
      preview: { title: `Refund ${amount} to ${payment.payee.name}`, amount, payee: payment.payee, purpose: payment.purpose },
    };
  }

  async function execute(order_id: string, details: [PaymentDetails], approval: RefundApproval): Promise<RefundOrderResult> {
    let redemption;
    try {
      redemption = await countersign.redeem(approval.access_token, details);
    } catch (error) {
      // A 4xx is the gate saying no: refund nothing and say why. A 5xx or a network error leaves it
      // unknown whether the token was spent; that is not a refusal, so it propagates.
      if (error instanceof CountersignError && error.status < 500) {
        return { status: 'refused', error: error.code, error_description: error.message };
      }
      throw error;
    }
    const [payment] = details;
    const { redemption_id, idempotency_key } = redemption;
    let refund_id: string;
    try {
      ({ refund_id } = await payments.refund({
        order_id,
        amount_minor: payment.amount_minor,
        currency: payment.currency,
        idempotency_key,
      }));
    } catch (error) {
      const reason = (error instanceof Error ? error.message : String(error)).slice(0, MAX_REASON) || 'refund failed';
      const outcome_reported = await report(redemption_id, { status: 'failed', reason });
      return { status: 'refund_failed', redemption_id, reason, outcome_reported };
    }
    const outcome_reported = await report(redemption_id, { status: 'succeeded', reference: refund_id });
    return { status: 'refunded', refund_id, redemption_id, outcome_reported };
  }

  /** Reports the outcome; the money has moved (or not) either way, so a failed report is a flag, not an error. */
  async function report(redemption_id: string, outcome: OutcomeReport): Promise<boolean> {
    try {
      await countersign.reportOutcome(redemption_id, outcome);
      return true;
    } catch {
      return false;
    }
  }

  return { definition: refundOrderDefinition, call };
}

/** Checks the arguments' shape; answers the approval, if any. */
function checkArguments(args: RefundOrderArgs): RefundApproval | undefined {
  if (typeof args !== 'object' || args === null) throw invalid('arguments must be an object');
  const unknown = Object.keys(args).filter((key) => !ARGUMENTS.has(key));
  if (unknown.length > 0) throw invalid(`unknown arguments: ${unknown.join(', ')}`);
  if (typeof args.order_id !== 'string' || !ORDER_ID.test(args.order_id)) {
    throw invalid('order_id must be 1 to 57 letters, digits and ._:-');
  }
  const { approval } = args;
  if (approval === undefined) return undefined;
  if (
    typeof approval !== 'object' ||
    approval === null ||
    typeof approval.auth_req_id !== 'string' ||
    typeof approval.access_token !== 'string' ||
    approval.access_token === ''
  ) {
    throw invalid('approval must be {auth_req_id, access_token}');
  }
  return { auth_req_id: approval.auth_req_id, access_token: approval.access_token };
}

/**
 * The `payment` action for these arguments, validated and normalised by the shared schema, so
 * both turns hash the same bytes for the same arguments.
 */
async function buildDetails(orders: OrderLookup, args: RefundOrderArgs): Promise<[PaymentDetails]> {
  const order = await orders.findOrder(args.order_id);
  if (!order) throw new CountersignError('not_found', `no order ${args.order_id}`);
  const parsed = paymentDetails.safeParse({
    type: 'payment',
    transaction_id: `refund_${args.order_id}`,
    amount_minor: args.amount_minor,
    currency: args.currency,
    payee: { id: order.customer.id, name: order.customer.name },
    purpose: args.reason,
  });
  if (!parsed.success) {
    // Name the caller's arguments, not the action's members they became.
    const names: Record<string, string> = { purpose: 'reason', transaction_id: 'order_id' };
    const problems = parsed.error.issues.map((issue) => {
      const [head = '', ...rest] = issue.path.map(String);
      return `${[names[head] ?? head, ...rest].join('.')}: ${issue.message}`;
    });
    throw invalid(problems.join('; '));
  }
  return [parsed.data];
}

function invalid(description: string): CountersignError {
  return new CountersignError('invalid_request', `refund_order: ${description}`);
}
