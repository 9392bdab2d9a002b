import { inState, tokenGuard } from './lifecycle-guards.ts';
import type { Lifecycle, LifecycleTimes, Swap } from './lifecycle-types.ts';

/**
 * The approval token and its redemption of the {@link Lifecycle} (`issueToken`, `redeem`,
 * `reportOutcome`, `flagOutcome` of `TRANSITIONS`) over a {@link Swap}: the guards, fields and entry of each.
 */
export function tokenOps(swap: Swap, times: LifecycleTimes): Pick<Lifecycle, 'issueToken' | 'redeem' | 'reportOutcome' | 'flagOutcome'> {
  return {
    issueToken(request, token, extra, now) {
      return swap(request, [inState('approved'), { field: 'token_jti', op: 'absent' }, { field: 'approval_expires_at', op: 'gt', value: now }], { token_jti: token.jti, token_hash: token.hash, token_issued_at: String(now), ...extra }, { op: 'issueToken', at: now, jti: token.jti, expires_in: token.expires_in });
    },
    redeem(ref, presented, now) {
      return swap(
        ref,
        [inState('approved'), tokenGuard(presented), { field: 'approval_expires_at', op: 'gt', value: now }, { field: 'details_hash', op: 'eq', value: presented.details_hash }],
        { state: 'redeemed', redemption_id: presented.redemption_id, redeemed_at: String(now), outcome_status: 'unknown' },
        { op: 'redeem', at: now, redemption_id: presented.redemption_id },
        { ttlSeconds: times.retentionSeconds },
      );
    },
    reportOutcome(ref, redemptionId, report, now) {
      return swap(
        ref,
        [inState('redeemed'), { field: 'redemption_id', op: 'eq', value: redemptionId }, { field: 'outcome_status', op: 'eq', value: 'unknown' }],
        {
          outcome_status: report.status,
          ...(report.reference ? { outcome_reference: report.reference } : {}),
          ...(report.reason ? { outcome_reason: report.reason } : {}),
          outcome_at: String(now),
        },
        { op: 'reportOutcome', at: now, redemption_id: redemptionId, status: report.status, ...(report.reference ? { reference: report.reference } : {}) },
      );
    },
    flagOutcome(ref, redemptionId, now) {
      return swap(ref, [inState('redeemed'), { field: 'redemption_id', op: 'eq', value: redemptionId }, { field: 'outcome_status', op: 'eq', value: 'unknown' }, { field: 'outcome_flagged_at', op: 'absent' }], { outcome_flagged_at: String(now) }, { op: 'flagOutcome', at: now, redemption_id: redemptionId });
    },
  };
}
