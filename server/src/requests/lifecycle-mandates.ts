import { inState, spendOutcomeStates, tokenGuard } from './lifecycle-guards.ts';
import type { Lifecycle, LifecycleTimes, Swap } from './lifecycle-types.ts';
import { MANDATE_FIELDS } from './mandate-fields.ts';

/**
 * A mandate's operations of the {@link Lifecycle} (`spend`, `revoke`, `reportSpendOutcome`,
 * `flagSpendOutcome` of `TRANSITIONS`, docs/mandates.md) over a {@link Swap}: the guards,
 * fields and entry of each.
 */
export function mandateOps(swap: Swap, times: LifecycleTimes): Pick<Lifecycle, 'spend' | 'revoke' | 'reportSpendOutcome' | 'flagSpendOutcome'> {
  return {
    spend(ref, input, now) {
      const { spend } = input;
      return swap(
        ref,
        [inState('approved'), tokenGuard(input), { field: 'details_hash', op: 'eq', value: input.details_hash }, { field: 'approval_expires_at', op: 'gt', value: now }, { field: MANDATE_FIELDS.startsAt, op: 'lt', value: now + 1 }, { field: MANDATE_FIELDS.spend(spend.transaction_id), op: 'absent' }],
        { [MANDATE_FIELDS.spend(spend.transaction_id)]: JSON.stringify(spend), [MANDATE_FIELDS.redemption(spend.redemption_id)]: spend.transaction_id },
        { op: 'spend', at: now, redemption_id: spend.redemption_id, transaction_id: spend.transaction_id, amount_minor: spend.amount_minor, currency: spend.currency, payee_id: spend.payee.id },
        {
          increments: [
            { field: MANDATE_FIELDS.total(spend.period, spend.currency), by: spend.amount_minor, max: input.total_max },
            // Without `max_spends` the count is still kept (the view shows it), bounded by the most any mandate allows.
            { field: MANDATE_FIELDS.count(spend.period), by: 1, max: input.count_max ?? Number.MAX_SAFE_INTEGER },
          ],
        },
      );
    },
    revoke(ref, by, now) {
      return swap(
        ref,
        [
          inState('approved'),
          // Only a mandate's record has a start (written at its approval): a one-off approval is not revoked.
          { field: MANDATE_FIELDS.startsAt, op: 'present' },
          // A mandate past its end has ended (the sweep marks it `expired`): it is not revoked after the fact.
          { field: 'approval_expires_at', op: 'gt', value: now },
        ],
        { state: 'expired', expired_at: String(now), expiry_reason: 'mandate_revoked', revoked_at: String(now), revoked_by: by.by },
        { op: 'revoke', at: now, by: by.by, channel: by.channel },
        { ttlSeconds: times.retentionSeconds },
      );
    },
    reportSpendOutcome(ref, spend, report, now) {
      return swap(
        ref,
        [...spendOutcomeStates, { field: MANDATE_FIELDS.redemption(spend.redemption_id), op: 'eq', value: spend.transaction_id }, { field: MANDATE_FIELDS.outcome(spend.transaction_id), op: 'absent' }],
        { [MANDATE_FIELDS.outcome(spend.transaction_id)]: JSON.stringify({ status: report.status, ...(report.reference ? { reference: report.reference } : {}), ...(report.reason ? { reason: report.reason } : {}), at: now }) },
        { op: 'reportSpendOutcome', at: now, redemption_id: spend.redemption_id, transaction_id: spend.transaction_id, status: report.status, ...(report.reference ? { reference: report.reference } : {}) },
      );
    },
    flagSpendOutcome(ref, spend, now) {
      return swap(
        ref,
        [...spendOutcomeStates, { field: MANDATE_FIELDS.redemption(spend.redemption_id), op: 'eq', value: spend.transaction_id }, { field: MANDATE_FIELDS.outcome(spend.transaction_id), op: 'absent' }, { field: MANDATE_FIELDS.flagged(spend.transaction_id), op: 'absent' }],
        { [MANDATE_FIELDS.flagged(spend.transaction_id)]: String(now) },
        { op: 'flagSpendOutcome', at: now, redemption_id: spend.redemption_id, transaction_id: spend.transaction_id, spent_at: spend.spent_at },
      );
    },
  };
}
