import type { MandateDetails, MandatePeriod } from '@countersign/shared';
import { MANDATE_FIELDS, periodKey, type MandateSpend } from '../requests/index.ts';
import { testRequest } from '../requests/request-fixture.ts';
import { toFields } from '../requests/request-fields.ts';
import { keys, type Fields, type Store } from '../store/index.ts';

/** The states a mandate's record can be in for its operations: the fixed states, and `revoked` (`expired` with `expiry_reason: mandate_revoked`). */
export const MANDATE_STATES = ['pending', 'approved', 'denied', 'expired', 'redeemed', 'revoked'] as const;
export type MandateState = (typeof MANDATE_STATES)[number];

export const JTI = 'jti_mandate_0123456789';
export const HASH = 'details_hash_of_the_mandate';
/** The `token_hash` kept with the mandate's record: the hash of the token {@link JTI} names. */
export const TOKEN_HASH = 'sha256_of_the_mandate_token';
/** The spend every fixture already holds (so an outcome report has one to find): EUR 1.00 as `bill_0`. */
export const EARLIER = 'bill_0';
export const earlierRedemption = (authReqId: string) => `rdm_earlier0000000.${authReqId}`;

/** An instant as a mandate states it: RFC 3339 UTC to the second. */
const instant = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** A mandate of ACME Utilities: EUR 1.00 to 10.00 a spend, EUR 37.00 in all, from a minute before `now` for 30 days. */
export function mandateDetails(now: number): MandateDetails {
  return {
    type: 'mandate',
    transaction_id: 'mdt_1',
    covers: 'payment',
    payees: [{ id: 'acct_77', name: 'ACME Utilities' }],
    limits: [{ currency: 'EUR', per_spend_min_minor: 100, per_spend_max_minor: 1000, total_minor: 3700 }],
    starts_at: instant(now - 60_000),
    ends_at: instant(now + 30 * 86_400_000),
    purpose: 'Utility bills',
  } as MandateDetails;
}

let count = 0;

/**
 * Stores a mandate's record in `state` with everything every mandate operation needs but the state
 * (a token, its start and end, the earlier spend `bill_0` and its counters), so only the state
 * decides. `oneOff`: an ordinary approved request instead (a payment, no mandate fields); `period`:
 * the mandate's period (none by default), the earlier spend counted in the period it falls in. Test code only.
 */
export async function storeMandate(store: Store, state: MandateState, now: number, options: { oneOff?: boolean; endsAt?: number; period?: MandatePeriod } = {}) {
  count += 1;
  const id = `req_mandate_${String(count).padStart(10, '0')}_${Math.random().toString(36).slice(2, 8)}`;
  const details = { ...mandateDetails(now), ...(options.period ? { period: options.period } : {}) };
  const spentIn = periodKey(details, now - 5000);
  const realState = state === 'revoked' ? 'expired' : state;
  const request = testRequest(id, now - 10_000, 60, {
    authorization_details: options.oneOff ? ([{ type: 'payment', transaction_id: 'pay_1', amount_minor: 100, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Utilities' }, purpose: 'One bill' }] as never) : [details],
    details_hash: HASH,
    state: realState,
    token_delivery_mode: 'poll',
    outcome: state === 'redeemed' ? { status: 'unknown' } : null,
  });
  const earlier: MandateSpend = { redemption_id: earlierRedemption(id), transaction_id: EARLIER, amount_minor: 100, currency: 'EUR', payee: { id: 'acct_77', name: 'ACME Utilities' }, at: now - 5000, period: spentIn, payment_hash: 'hash_of_bill_0', purpose: 'Electricity' };
  const later: Fields = {
    approval_expires_at: String(options.endsAt ?? Date.parse(details.ends_at)),
    token_jti: JTI,
    token_hash: TOKEN_HASH,
    ...(options.oneOff
      ? {}
      : {
          [MANDATE_FIELDS.startsAt]: String(Date.parse(details.starts_at)),
          [MANDATE_FIELDS.spend(EARLIER)]: JSON.stringify(earlier),
          [MANDATE_FIELDS.redemption(earlier.redemption_id)]: EARLIER,
          [MANDATE_FIELDS.total(spentIn, 'EUR')]: '100',
          [MANDATE_FIELDS.count(spentIn)]: '1',
        }),
    ...(state !== 'pending' ? { decided_at: String(now - 8000), decided_by: 'dev_1' } : {}),
    ...(state === 'redeemed' ? { redemption_id: `rdm_one0000000000.${id}`, redeemed_at: String(now - 1000), outcome_status: 'unknown' } : {}),
    ...(realState === 'expired' ? { expired_at: String(now - 1000) } : {}),
    ...(state === 'revoked' ? { expiry_reason: 'mandate_revoked', revoked_at: String(now - 1000), revoked_by: 'admin' } : {}),
  };
  const key = keys.request(request.tenant, id);
  await store.hashCreate(key, { ...toFields(request), ...later }, 3600);
  return { id, key, ref: { tenant: request.tenant, auth_req_id: id }, details, before: (await store.hashGet(key))! };
}

/** The fields `after` holds with another value than `before`, or not at all in it (the outbox's `seq` aside). */
export function changedFields(before: Fields, after: Fields): Fields {
  return Object.fromEntries(Object.entries(after).filter(([field, value]) => field !== 'seq' && before[field] !== value));
}
