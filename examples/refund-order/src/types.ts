import type { ErrorCode } from '@countersign/agent';

/** The payment system that executes refunds (a PSP). Injected; the tool never moves money itself. */
export interface PaymentSystem {
  /**
   * Refunds `amount_minor` minor units of `currency` on an order. Must treat a repeated
   * `idempotency_key` as the same refund (as Stripe's `Idempotency-Key` does), so a retry after a
   * timeout never refunds twice.
   * @returns the PSP's refund id.
   */
  refund(request: { order_id: string; amount_minor: number; currency: string; idempotency_key: string }): Promise<{ refund_id: string }>;
}

/** The customer an order's refund goes to. */
export interface Customer {
  /** The customer's account id, e.g. `acct_77`: letters, digits and `._:-`. */
  id: string;
  /** The name the approver sees, e.g. `ACME Ltd`. */
  name: string;
}

/** The order system: who paid for an order. Injected. */
export interface OrderLookup {
  /** The order's customer, or undefined for an unknown order. */
  findOrder(order_id: string): Promise<{ order_id: string; customer: Customer } | undefined>;
}

/** An approval obtained for an earlier call: the request id and the access token its poll returned. */
export interface RefundApproval {
  auth_req_id: string;
  access_token: string;
}

/** The arguments of `refund_order`, as a model or a caller sends them. */
export interface RefundOrderArgs {
  /** The order to refund: 1 to 57 letters, digits and `._:-`. */
  order_id: string;
  /** Positive integer, in the currency's minor unit (cents for EUR). */
  amount_minor: number;
  /** ISO 4217 code, e.g. `EUR`. */
  currency: string;
  /** Why, shown to the approver as the payment's purpose. */
  reason: string;
  /** Absent on the first call; the approval on the second. */
  approval?: RefundApproval;
}

/** What the approver will be asked to confirm, for the agent to tell the person. */
export interface RefundPreview {
  /** `Refund EUR 490.00 to ACME Ltd`. */
  title: string;
  /** The amount formatted from minor units with the ISO 4217 exponent: `EUR 490.00`. */
  amount: string;
  payee: Customer;
  purpose: string;
}

/** The answer of `refund_order`. */
export type RefundOrderResult =
  | {
      /** First turn: an approval was requested; nothing was refunded. */
      status: 'approval_required';
      auth_req_id: string;
      /** Seconds the request stays pending. */
      expires_in: number;
      /** Minimum seconds between polls. */
      interval: number;
      preview: RefundPreview;
    }
  | {
      /** The approval was refused at redemption; nothing was refunded. */
      status: 'refused';
      error: ErrorCode;
      error_description: string;
    }
  | {
      status: 'refunded';
      refund_id: string;
      redemption_id: string;
      /** False when the refund went through but reporting the outcome to Countersign failed. */
      outcome_reported: boolean;
    }
  | {
      /** The approval was spent, but the payment system failed; the failure was reported. */
      status: 'refund_failed';
      redemption_id: string;
      reason: string;
      outcome_reported: boolean;
    };
