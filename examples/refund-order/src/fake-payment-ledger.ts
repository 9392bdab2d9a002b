import type { PaymentSystem } from './types.ts';

/** One refund the fake ledger made. */
export interface RefundRecord {
  refund_id: string;
  order_id: string;
  amount_minor: number;
  currency: string;
  idempotency_key: string;
}

/** An in-memory stand-in for a payment provider; see {@link createFakePaymentLedger}. */
export interface FakePaymentLedger extends PaymentSystem {
  /** Every refund made, in order; a retried idempotency key does not add one. */
  readonly refunds: readonly RefundRecord[];
  /** Makes the next new refund fail with `reason` (to exercise a `failed` outcome). */
  failNextRefund(reason: string): void;
}

/**
 * An in-memory payment ledger standing in for the PSP in examples and tests. It records refunds
 * and, like a real PSP, answers a repeated `idempotency_key` with the same refund, and refuses a
 * repeated key with other parameters.
 */
export function createFakePaymentLedger(): FakePaymentLedger {
  const refunds: RefundRecord[] = [];
  let failure: string | undefined;
  return {
    refunds,
    failNextRefund(reason) {
      failure = reason;
    },
    async refund({ order_id, amount_minor, currency, idempotency_key }) {
      const earlier = refunds.find((r) => r.idempotency_key === idempotency_key);
      if (earlier) {
        if (earlier.order_id !== order_id || earlier.amount_minor !== amount_minor || earlier.currency !== currency) {
          throw new Error('idempotency key reused with other parameters');
        }
        return { refund_id: earlier.refund_id };
      }
      if (failure !== undefined) {
        const reason = failure;
        failure = undefined;
        throw new Error(reason);
      }
      const refund_id = `re_${refunds.length + 1}`;
      refunds.push({ refund_id, order_id, amount_minor, currency, idempotency_key });
      return { refund_id };
    },
  };
}
