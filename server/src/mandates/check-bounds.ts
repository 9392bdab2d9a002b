import { CountersignError, type MandateDetails, type PaymentDetails } from '@countersign/shared';

/**
 * The bounds of a mandate that do not move (who may be paid, which currencies, the per-spend
 * range), checked against one payment before anything is written: they are signed into the
 * mandate and never change, so no race can alter them. The bounds that do move (the period's
 * total and count, the dates against the clock, revocation) are checked in the spend's atomic
 * step (`Lifecycle.spend`).
 *
 * @returns the payment's currency's limit.
 * @throws CountersignError `payee_not_allowed` (403: the payee's id is not listed, or is listed under
 *   another name: a name the person never saw next to that account is not the payee they allowed),
 *   `mandate_exceeded` (403: a currency the mandate does not list, or an amount outside its range).
 */
export function checkStaticBounds(mandate: MandateDetails, payment: PaymentDetails): MandateDetails['limits'][number] {
  const payee = mandate.payees.find((allowed) => allowed.id === payment.payee.id);
  if (!payee || payee.name !== payment.payee.name) {
    throw new CountersignError('payee_not_allowed', "The mandate does not allow payments to this payee (its id and name must be one of the mandate's payees).", { status: 403 });
  }
  const limit = mandate.limits.find((candidate) => candidate.currency === payment.currency);
  if (!limit) throw new CountersignError('mandate_exceeded', `The mandate allows no payments in ${payment.currency}.`, { status: 403 });
  if (payment.amount_minor < limit.per_spend_min_minor || payment.amount_minor > limit.per_spend_max_minor) {
    throw new CountersignError('mandate_exceeded', `The amount is outside the mandate's range for one payment (${limit.per_spend_min_minor} to ${limit.per_spend_max_minor} minor units of ${limit.currency}).`, { status: 403 });
  }
  return limit;
}
