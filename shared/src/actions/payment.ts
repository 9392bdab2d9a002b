import { z } from 'zod';
import { currencyCode, formatAmount, positiveMinorUnits } from '../money/index.ts';
import { displayName, displayText, identifier } from '../schemas/text.ts';
import type { ActionDisplay } from './display.ts';
import { displayPrecondition, precondition } from './precondition.ts';

/**
 * The `payment` authorization details type (docs/design.md "Actions", fixed): one payment or refund
 * of `amount_minor` minor units of `currency` to `payee`. Unknown members are refused, not dropped.
 *
 * @see RFC 9396 §2 (authorization details), ISO 4217
 */
export const paymentDetails = z.strictObject({
  type: z.literal('payment'),
  /** The client's idempotency key for this action. */
  transaction_id: identifier(64),
  /** Positive safe integer, in the currency's minor unit (cents for EUR). */
  amount_minor: positiveMinorUnits,
  /** ISO 4217 alphabetic code. */
  currency: currencyCode,
  payee: z.strictObject({
    id: identifier(64),
    /** What the person reads as the payee: one script (UTS #39), nothing invisible. */
    name: displayName(140),
  }),
  purpose: displayText(5000),
  /**
   * Optional: the payment gives money back (a refund to a customer), so the person is asked to
   * "Refund", not to "Pay". It changes the words only: a refund is weighed, limited and redeemed as
   * any payment of its amount.
   */
  refund: z.boolean().optional(),
  /** Optional: run only while this record is at this version; checked at `/redeem` (`stale_record`). */
  precondition: precondition.optional(),
});

/** A validated `payment` action. */
export type PaymentDetails = z.infer<typeof paymentDetails>;

/** What the person sees for a payment: the verb (`Refund` for a refund), amount from minor units, payee and purpose. */
export function displayPayment(details: PaymentDetails): ActionDisplay {
  const amount = formatAmount(details.amount_minor, details.currency);
  const verb = details.refund ? 'Refund' : 'Pay';
  return {
    type: 'payment',
    verb,
    title: `${verb} ${amount.formatted_code} to ${details.payee.name}`,
    summary: `${amount.formatted_code} to ${details.payee.name}`,
    amount,
    fields: [{ label: 'Amount', value: amount.formatted_code }, { label: 'Payee', value: `${details.payee.name} (${details.payee.id})` }, { label: 'Purpose', value: details.purpose }, { label: 'Transaction', value: details.transaction_id }, ...(details.precondition ? [displayPrecondition(details.precondition)] : [])],
  };
}
