import { CountersignError, type MandateDetails, type RedeemResponse, type Redemption } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { checkPreconditions, invalidToken, newRedemptionId, proveToken, type PresentedAction, type PresentedToken } from '../redemption/index.ts';
import { MANDATE_FIELDS, periodKey, SPEND_GUARDS, type MandateSpend, type SpendOutcome } from '../requests/index.ts';
import type { Fields } from '../store/index.ts';
import { checkStaticBounds } from './check-bounds.ts';
import { presentedPayment } from './present-payment.ts';

/** The redemption record of an earlier spend, as `already_redeemed` carries it. */
export function spendRedemption(spend: MandateSpend, outcome: SpendOutcome | null): Redemption {
  return {
    redemption_id: spend.redemption_id,
    redeemed_at: new Date(spend.at).toISOString(),
    outcome: outcome ? { status: outcome.status, ...(outcome.reference ? { reference: outcome.reference } : {}), ...(outcome.reason ? { reason: outcome.reason } : {}) } : { status: 'unknown' },
  };
}

/** A replay of a spend already made: the same payment answers its record, another payment under its `transaction_id` is a conflict. */
function replayed(fields: Fields, transactionId: string, paymentHash: string): CountersignError | null {
  const earlier = fields[MANDATE_FIELDS.spend(transactionId)];
  if (!earlier) return null;
  const spend = JSON.parse(earlier) as MandateSpend;
  if (spend.payment_hash !== paymentHash) return new CountersignError('transaction_conflict', 'This transaction_id was already spent under this mandate, for another payment.');
  const outcome = fields[MANDATE_FIELDS.outcome(transactionId)];
  return new CountersignError('already_redeemed', 'This payment was already spent under this mandate.', { body: { redemption: spendRedemption(spend, outcome ? (JSON.parse(outcome) as SpendOutcome) : null) } });
}

/** Why a spend's swap failed, from the guard that failed ({@link SPEND_GUARDS}) and the record as it stands. */
function refusal(failedGuard: number | undefined, fields: Fields | null, nowMs: number): CountersignError {
  if (!fields?.auth_req_id) return invalidToken('The mandate no longer exists.');
  switch (SPEND_GUARDS[failedGuard ?? -1]) {
    case 'state':
      if (fields.expiry_reason === 'mandate_revoked') return new CountersignError('mandate_revoked', 'The mandate was revoked.');
      if (fields.state === 'expired') return new CountersignError('mandate_expired', 'The mandate has ended.');
      return invalidToken('The mandate is not active.');
    case 'token':
      return invalidToken('The token is not the one issued for this mandate.');
    case 'details_hash':
      return new CountersignError('approval_mismatch', 'The token does not match the mandate that was approved.');
    case 'ends_at':
      return new CountersignError('mandate_expired', 'The mandate has ended.');
    case 'starts_at':
      return new CountersignError('mandate_expired', `The mandate starts at ${new Date(Number(fields[MANDATE_FIELDS.startsAt] ?? nowMs)).toISOString()}.`);
    case 'total':
      return new CountersignError('mandate_exceeded', 'The payment would take the mandate over its total for the period.');
    case 'count':
      return new CountersignError('mandate_exceeded', 'The mandate allows no more payments in this period.');
    default:
      return invalidToken('The mandate is not redeemable.');
  }
}

/**
 * Spends a mandate: one concrete payment, redeemed with the mandate's token at `/redeem`
 * (docs/mandates.md "Spending"). In order (the caller checked that the token names the calling
 * client, and has not proven it: see `redeemPresented`): the payment is
 * exactly one valid `payment` in canonical form (`presentedPayment`); its payee (id and name),
 * currency and amount fit the mandate's fixed bounds (`checkStaticBounds`); the preconditions of the
 * mandate and the payment name the versions the executor states; then ONE compare-and-swap on the
 * mandate's record (`Lifecycle.spend`, one Lua script on one key) checks that the mandate is
 * approved (not revoked, not ended), that the token is its token (its `token_hash`), that the clock (injected, passed
 * in) is within `starts_at … ends_at`, that the payment's `transaction_id` was not spent, and that
 * the period's total and count stay within their bounds, and records the spend (its own redemption
 * id, idempotency key its `transaction_id`) and raises the counters. Its outbox entry audits it
 * (`spent`) and pushes the receipt when the mandate asks for receipts.
 *
 * A refusal writes nothing (and is audited as `refused` with its reason by the route). A replay of
 * the same payment (same `transaction_id`, same JCS) answers `already_redeemed` with the spend's
 * record, also after the mandate ended or was revoked.
 *
 * A swap that fails proves the token against the record it answered (`proveToken`) before any
 * refusal or replay is read from that record.
 *
 * @param mandate - the mandate the token's `authorization_details` carry (trusted once the token is proven).
 * @throws CountersignError `invalid_request` (400: not one payment, or
 *   not canonical), `payee_not_allowed` (403), `mandate_exceeded` (403), `mandate_expired` (403),
 *   `mandate_revoked` (403), `stale_record` (409), `already_redeemed` (409, with `redemption`),
 *   `transaction_conflict` (409), `approval_mismatch` (400), `invalid_token` (401).
 * @see docs/design.md guarantees 3, 6 and 7; RFC 9396; RFC 8785
 */
export async function spendMandate(deps: Deps, token: PresentedToken, mandate: MandateDetails, presented: PresentedAction, currentVersions: Record<string, string> = {}): Promise<RedeemResponse> {
  const now = deps.clock.now();
  const { claims } = token;
  const ref = { tenant: claims.tenant, auth_req_id: claims.auth_req_id };
  const { payment, payment_hash } = await presentedPayment(presented);
  const limit = checkStaticBounds(mandate, payment);
  checkPreconditions([mandate, payment], currentVersions);

  const spend: MandateSpend = {
    redemption_id: newRedemptionId(deps.ids, ref.auth_req_id),
    transaction_id: payment.transaction_id,
    amount_minor: payment.amount_minor,
    currency: payment.currency,
    payee: { id: payment.payee.id, name: payment.payee.name },
    at: now,
    period: periodKey(mandate, now),
    payment_hash,
    purpose: payment.purpose,
  };
  const input = { jti: claims.jti, details_hash: claims.details_hash, spend, total_max: limit.total_minor, ...(mandate.max_spends ? { count_max: mandate.max_spends } : {}) };
  let result = await deps.lifecycle.spend(ref, { ...input, hash: token.hash }, now);
  if (!result.ok) {
    await proveToken(deps, token, result.fields);
    if (token.legacy) result = await deps.lifecycle.spend(ref, input, now);
  }
  if (!result.ok) {
    // A replay is answered as one whatever else has happened since (revoked, ended, exhausted).
    throw (result.fields ? replayed(result.fields, spend.transaction_id, payment_hash) : null) ?? refusal(result.failedGuard, result.fields, now);
  }
  token.authentic = true;
  return {
    status: 'redeemed',
    redemption_id: spend.redemption_id,
    idempotency_key: spend.transaction_id,
    authorization_details: [payment],
    redeemed_at: new Date(now).toISOString(),
  };
}
