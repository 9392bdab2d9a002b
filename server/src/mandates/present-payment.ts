import { CountersignError, detailsHash, paymentDetails, type PaymentDetails } from '@countersign/shared';
import { describeIssue } from '../http/index.ts';
import type { PresentedAction } from '../redemption/index.ts';

/** Deeper than a payment nests (the array, the action, its payee or precondition): not one. */
const MAX_PAYMENT_DEPTH = 4;

function invalid(description: string): CountersignError {
  return new CountersignError('invalid_request', description);
}

/**
 * The one payment a spend presents, checked with the payment schema and in its exact form: the
 * `authorization_details` must be an array of exactly one `payment`, valid as the schema says, and
 * written as the schema would store it (JCS of the text as presented equals JCS of the parsed
 * payment), so display text in another normal form, other spaces, or numbers spelled `49000.0`
 * are refused rather than silently normalised: the spend recorded is byte for byte what the
 * executor will run (as `/redeem` does for a single approval).
 *
 * @returns the payment and `payment_hash`, its `details_hash` (of the one-element array).
 * @throws CountersignError `invalid_request` (400) for anything else.
 */
export async function presentedPayment(presented: PresentedAction): Promise<{ payment: PaymentDetails; payment_hash: string }> {
  const details = presented.details;
  if (!Array.isArray(details) || details.length !== 1) throw invalid('A spend of a mandate presents exactly one payment as authorization_details.');
  const [only] = details as unknown[];
  if (typeof only !== 'object' || only === null || (only as { type?: unknown }).type !== 'payment') throw invalid('A mandate covers payments: the spend must be one action of type payment.');
  const parsed = paymentDetails.safeParse(only);
  if (!parsed.success) throw invalid(`The payment is not valid: ${describeIssue(parsed.error, 'authorization_details[0]', only)}`);
  if (!presented.numbersExact || presented.depth > MAX_PAYMENT_DEPTH) throw invalid('The payment must be written in its canonical form (numbers as JCS writes them).');
  const [asPresented, asParsed] = await Promise.all([detailsHash(details), detailsHash([parsed.data])]);
  if (asPresented !== asParsed) throw invalid('The payment must be written in its canonical form (text in NFC, without leading or trailing spaces).');
  return { payment: parsed.data, payment_hash: asPresented };
}
