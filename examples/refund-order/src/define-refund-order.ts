import { CountersignError, defineTool, displayText, type GatedTool, isCurrencyCode, z } from '@countersign/agent';
import type { OrderLookup, PaymentSystem } from './types.ts';

/** Options of {@link defineRefundOrder}. */
export interface DefineRefundOrderOptions {
  /** The `sub` of the person who approves refunds. */
  login_hint: string;
  /** Executes the refund once approved. */
  payments: PaymentSystem;
  /** Says who paid for an order: the refund's payee comes from here, never from the arguments. */
  orders: OrderLookup;
}

/** The arguments of `refund_order`: anything else is refused, not dropped. */
export const refundOrderParameters = z.strictObject({
  // 'refund_' + order_id must still be a 64-character identifier (the action's transaction_id).
  order_id: z
    .string()
    .regex(/^[A-Za-z0-9._:-]{1,57}$/, 'must be 1 to 57 letters, digits and ._:-')
    .describe('The order to refund.'),
  amount_minor: z.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe("Amount in the currency's minor unit (cents for EUR): 490.00 EUR is 49000."),
  currency: z.string().refine(isCurrencyCode, 'must be an ISO 4217 currency code').describe('ISO 4217 code, e.g. EUR.'),
  reason: displayText(5000).describe('Why; shown to the approver as the purpose.'),
});

/** The validated arguments of `refund_order`. */
export type RefundOrderParameters = z.output<typeof refundOrderParameters>;

/** The `refund_order` tool as a tool runner runs it: gated, so every refund needs the person's yes. */
export type RefundOrderGatedTool = GatedTool<typeof refundOrderParameters, { refund_id: string }>;

/**
 * Defines `refund_order`, marked as needing approval. The action is a `payment` to the customer
 * who paid for the order (looked up, never taken from the model), keyed `refund_<order_id>` so
 * one order has one refund request; it runs with the redemption's idempotency key, so a retry
 * never refunds twice.
 *
 * @example
 * ```ts
 * const runner = createToolRunner({ client: countersign, wait: 'poll',
 *   tools: [defineRefundOrder({ login_hint: 'alice', payments, orders })] });
 * await runner.call('refund_order', { order_id: '1042', amount_minor: 49000, currency: 'EUR', reason: 'Damaged' });
 * ```
 */
export function defineRefundOrder({ login_hint, payments, orders }: DefineRefundOrderOptions): RefundOrderGatedTool {
  return defineTool({
    name: 'refund_order',
    description: 'Refunds an amount on a customer order to the customer who paid. Runs only once a person approved this exact refund on their phone; until then nothing is refunded.',
    parameters: refundOrderParameters,
    execute: (args, { idempotency_key }) => payments.refund({ order_id: args.order_id, amount_minor: args.amount_minor, currency: args.currency, idempotency_key }),
    approval: {
      login_hint,
      async toAuthorizationDetails(args) {
        const order = await orders.findOrder(args.order_id);
        if (!order) throw new CountersignError('not_found', `refund_order: no order ${args.order_id}`);
        return [
          {
            type: 'payment',
            transaction_id: `refund_${args.order_id}`,
            amount_minor: args.amount_minor,
            currency: args.currency,
            payee: { id: order.customer.id, name: order.customer.name },
            purpose: args.reason,
          },
        ];
      },
      reference: (result) => result.refund_id,
    },
  });
}
