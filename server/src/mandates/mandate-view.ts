import { displayAction, formatAmount, periodAt, type MandateDetails, type MandateSpendView, type MandateStatus, type MandateView } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { counterOf, MANDATE_FIELDS, mandateOf, periodKey, requestOf, spendsOf, type ApprovalRequest } from '../requests/index.ts';
import { keys, type Fields } from '../store/index.ts';

/** The most mandates one list answers: a person with more sees the newest. */
const MAX_LISTED = 200;

/**
 * A mandate's status at `nowMs`: `pending` until approved; `active` while approved and before its
 * end; `revoked` once revoked; `expired` otherwise (ended, denied, never approved in time).
 */
export function mandateStatus(request: ApprovalRequest, nowMs: number): MandateStatus {
  if (request.expiry_reason === 'mandate_revoked') return 'revoked';
  if (request.state === 'pending' && nowMs < request.expires_at) return 'pending';
  if (request.state === 'approved' && nowMs < (request.approval_expires_at ?? 0)) return 'active';
  return 'expired';
}

/** The spends of a record as the person reads them, newest first. */
function spendViews(fields: Fields): MandateSpendView[] {
  return spendsOf(fields)
    .reverse()
    .map((spend) => ({
      redemption_id: spend.redemption_id,
      transaction_id: spend.transaction_id,
      amount: formatAmount(spend.amount_minor, spend.currency),
      payee: { id: spend.payee.id, name: spend.payee.name },
      spent_at: new Date(spend.at).toISOString(),
      outcome: spend.outcome ? { status: spend.outcome.status, ...(spend.outcome.reference ? { reference: spend.outcome.reference } : {}), ...(spend.outcome.reason ? { reason: spend.outcome.reason } : {}) } : { status: 'unknown' as const },
    }));
}

/**
 * The read model of one mandate (`MandateView`, shared/src/schemas/mandate-view.ts) from its raw
 * record at `nowMs`: its status, the current UTC calendar period (null without one), what is
 * spent and left per currency in that period (or in all), the spends left under `max_spends`
 * (null without), every spend with its outcome (newest first), and its revocation.
 *
 * The period is the one holding `nowMs`, clamped to the mandate's life: before it starts, the
 * first period; after it ends, the last.
 *
 * @returns null when the record is not a mandate's.
 */
export function mandateView(fields: Fields, nowMs: number): MandateView | null {
  const request = requestOf(fields);
  const mandate = request ? mandateOf(request.authorization_details) : null;
  if (!request || !mandate) return null;
  const at = Math.min(Math.max(nowMs, Date.parse(mandate.starts_at)), Date.parse(mandate.ends_at) - 1);
  const key = periodKey(mandate, at);
  const period = mandate.period ? periodAt(at, mandate.period) : null;
  const count = counterOf(fields, MANDATE_FIELDS.count(key));
  return {
    auth_req_id: request.auth_req_id,
    status: mandateStatus(request, nowMs),
    client_name: request.client_name,
    display: displayAction(mandate),
    period: period ? { start: new Date(period.start).toISOString(), end: new Date(period.end).toISOString() } : null,
    remaining: remainingOf(mandate, fields, key),
    spends_left: mandate.max_spends === undefined ? null : Math.max(0, mandate.max_spends - count),
    spends: spendViews(fields),
    revoked_at: request.revoked_at === undefined ? null : new Date(request.revoked_at).toISOString(),
    ends_at: mandate.ends_at,
  };
}

function remainingOf(mandate: MandateDetails, fields: Fields, key: string): MandateView['remaining'] {
  return mandate.limits.map((limit) => {
    const spent = counterOf(fields, MANDATE_FIELDS.total(key, limit.currency));
    return {
      currency: limit.currency,
      total: formatAmount(limit.total_minor, limit.currency),
      spent: formatAmount(spent, limit.currency),
      left: formatAmount(Math.max(0, limit.total_minor - spent), limit.currency),
    };
  });
}

const RANK: Record<MandateStatus, number> = { active: 0, pending: 1, revoked: 2, expired: 3 };

/**
 * `GET /api/device/mandates`: the mandates of one person (`keys.userMandates`), as
 * {@link mandateView}s: active first, then pending, revoked and expired, each group newest first.
 * Records gone (past their retention) are left out.
 */
export async function listMandates(deps: Pick<Deps, 'store' | 'clock'>, tenant: string, sub: string): Promise<{ mandates: MandateView[] }> {
  const ids = await deps.store.sortedRangeByScore(keys.userMandates(tenant, sub), Number.MAX_SAFE_INTEGER, 10_000);
  const newest = ids.slice(-MAX_LISTED).reverse();
  const records = await Promise.all(newest.map((id) => deps.store.hashGet(keys.request(tenant, id))));
  const now = deps.clock.now();
  const views = records
    .filter((fields): fields is Fields => fields !== null && fields.sub === sub)
    .map((fields) => mandateView(fields, now))
    .filter((view): view is MandateView => view !== null);
  // Array.prototype.sort is stable: within a status, the newest-first order of the index stays.
  return { mandates: views.sort((a, b) => RANK[a.status] - RANK[b.status]) };
}
