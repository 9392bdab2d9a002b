import { CountersignError, type OutcomeReport } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { MANDATE_FIELDS, type SpendOutcome } from '../requests/index.ts';
import { keys, type Fields } from '../store/index.ts';

/**
 * Records what really happened after one spend of a mandate (`POST /redemptions/{id}/outcome` with
 * the spend's own redemption id): `unknown → succeeded | failed`, once per spend
 * (`Lifecycle.reportSpendOutcome`), also after the mandate ended. The same report again is
 * accepted (a retry); another one is refused `outcome_conflict` and audited.
 *
 * @param fields - the mandate's record, as the caller read it (it is the calling client's).
 * @throws CountersignError `not_found` (404: no spend has this id), `outcome_conflict` (409).
 * @see docs/design.md guarantee 8
 */
export async function reportSpendOutcome(deps: Deps, client: ClientRecord, fields: Fields, redemptionId: string, report: OutcomeReport): Promise<{ redemption_id: string; auth_req_id: string; outcome: OutcomeReport }> {
  const authReqId = fields.auth_req_id!;
  const transactionId = fields[MANDATE_FIELDS.redemption(redemptionId)];
  if (!transactionId) throw new CountersignError('not_found', 'No such redemption.');
  const answer = { redemption_id: redemptionId, auth_req_id: authReqId, outcome: report };
  const result = await deps.lifecycle.reportSpendOutcome({ tenant: client.tenant, auth_req_id: authReqId }, { redemption_id: redemptionId, transaction_id: transactionId }, report, deps.clock.now());
  if (result.ok) return answer;
  const stored = result.fields?.[MANDATE_FIELDS.outcome(transactionId)];
  const earlier = stored ? (JSON.parse(stored) as SpendOutcome) : null;
  if (earlier && earlier.status === report.status && earlier.reference === report.reference && earlier.reason === report.reason) return answer;
  await deps.audit.record({
    type: 'refused',
    reason: 'outcome_conflict',
    tenant: client.tenant,
    auth_req_id: authReqId,
    client_id: client.client_id,
    sub: fields.sub,
    channel: 'agent',
    detail: { redemption_id: redemptionId, transaction_id: transactionId, status: report.status },
  });
  throw new CountersignError('outcome_conflict', 'A different outcome was already reported for this redemption.');
}

/** The mandate's raw record, for {@link reportSpendOutcome}. */
export function readMandateFields(deps: Pick<Deps, 'store'>, tenant: string, authReqId: string): Promise<Fields | null> {
  return deps.store.hashGet(keys.request(tenant, authReqId));
}
