import type { AuthorizationDetails, MandateDetails, OutcomeReport } from '@countersign/shared';
import { periodAt } from '@countersign/shared';
import type { Fields } from '../store/index.ts';

/**
 * Where a mandate's spends live: in its request's own record (one hash, one key), so a spend's
 * checks and writes are one compare-and-swap on one key, and so one Redis Cluster slot, with no
 * index beside it that could fail apart from it (docs/mandates.md "Storage"). Field names:
 *
 *   mandate_starts_at        epoch ms, written at the approval (the spend's "not before" guard)
 *   ms:x:<transaction_id>    the spend (JSON of {@link MandateSpend}): its idempotency record
 *   ms:r:<redemption_id>     → the spend's transaction_id (an outcome report finds its spend)
 *   ms:o:<transaction_id>    the spend's outcome (JSON of {@link SpendOutcome}), once reported
 *   ms:f:<transaction_id>    epoch ms the spend was flagged `outcome_unknown` (its outcome overdue), once
 *   ms:t:<period>:<currency> minor units spent in the period (`all` without a period), a counter
 *   ms:n:<period>            spends made in the period, a counter
 *   revoked_at, revoked_by   set by the revocation (with `state: expired`, `expiry_reason: mandate_revoked`)
 */
export const MANDATE_FIELDS = {
  startsAt: 'mandate_starts_at',
  spend: (transactionId: string) => `ms:x:${transactionId}`,
  redemption: (redemptionId: string) => `ms:r:${redemptionId}`,
  outcome: (transactionId: string) => `ms:o:${transactionId}`,
  flagged: (transactionId: string) => `ms:f:${transactionId}`,
  total: (period: string, currency: string) => `ms:t:${period}:${currency}`,
  count: (period: string) => `ms:n:${period}`,
} as const;

/** One spend of a mandate as its record keeps it. Times epoch ms; `amount_minor` in the currency's minor unit. */
export interface MandateSpend {
  redemption_id: string;
  transaction_id: string;
  amount_minor: number;
  currency: string;
  payee: { id: string; name: string };
  at: number;
  /** The spend's period key (`2026-12-01`, `all`), whose counters it raised. */
  period: string;
  /** `details_hash` of the one-payment `authorization_details` as presented: a replay must present the same. */
  payment_hash: string;
  /** The `purpose` of the payment, as presented. */
  purpose: string;
}

/** A spend's reported outcome. */
export type SpendOutcome = OutcomeReport & { at: number };

/** The mandate a request carries, or null for any other request (a mandate is the only action of its request). */
export function mandateOf(details: AuthorizationDetails): MandateDetails | null {
  const only = details.length === 1 ? details[0]! : null;
  return only && only.type === 'mandate' ? (only as MandateDetails) : null;
}

/**
 * The key of the period holding `atMs`: the UTC date its period starts on (`2026-12-01`), or `all`
 * for a mandate without a period. Its counters renew when the key changes, on the calendar.
 */
export function periodKey(mandate: MandateDetails, atMs: number): string {
  if (!mandate.period) return 'all';
  return new Date(periodAt(atMs, mandate.period).start).toISOString().slice(0, 10);
}

/** Every spend a mandate's record holds, oldest first, with its outcome when reported. */
export function spendsOf(fields: Fields): (MandateSpend & { outcome: SpendOutcome | null })[] {
  const spends: (MandateSpend & { outcome: SpendOutcome | null })[] = [];
  for (const [field, value] of Object.entries(fields)) {
    if (!field.startsWith('ms:x:')) continue;
    const spend = JSON.parse(value) as MandateSpend;
    const outcome = fields[MANDATE_FIELDS.outcome(spend.transaction_id)];
    spends.push({ ...spend, outcome: outcome ? (JSON.parse(outcome) as SpendOutcome) : null });
  }
  return spends.sort((a, b) => a.at - b.at || a.redemption_id.localeCompare(b.redemption_id));
}

/** A counter field's value, 0 when absent. */
export function counterOf(fields: Fields, field: string): number {
  const value = fields[field];
  return value === undefined ? 0 : Number(value);
}
