import { CountersignError, type OutcomeReport } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { fromFields, isRequestId, mandateOf, requestOf, type ApprovalRequest } from '../requests/index.ts';
import { keys, type Fields } from '../store/index.ts';
import { parseRedemptionId } from './redemption-id.ts';

/**
 * Records the outcome of one of a mandate's spends (`server/src/mandates`), given by the
 * composition (`app.ts`) so this folder does not import the mandates, which build on it.
 */
export type SpendOutcomeReporter = (deps: Deps, client: ClientRecord, fields: Fields, redemptionId: string, report: OutcomeReport) => Promise<{ redemption_id: string; auth_req_id: string; outcome: OutcomeReport }>;

function sameOutcome(request: ApprovalRequest, report: OutcomeReport): boolean {
  const outcome = request.outcome;
  if (!outcome || outcome.status === 'unknown') return false;
  return outcome.status === report.status && outcome.reference === report.reference && outcome.reason === report.reason;
}

/**
 * Records what really happened after a redemption: `unknown → succeeded | failed`, once
 * (`Lifecycle.reportOutcome`). The same report sent again is accepted (a retry); a different one is
 * refused with `outcome_conflict`. The transition's consequences take the redemption out of the
 * outcome deadline index, so it is never flagged `outcome_unknown` after this; a report that
 * arrives after the flag is still accepted.
 *
 * The redemption is found from its id (`parseRedemptionId`), and only when the request's stored
 * `redemption_id` is that exact id and the request is the calling client's.
 *
 * @throws CountersignError `not_found` (404: unknown id or another client's), `outcome_conflict` (409).
 * @see docs/design.md guarantee 8
 */
export async function reportOutcome(deps: Deps, client: ClientRecord, redemptionId: string, report: OutcomeReport, reportSpendOutcome?: SpendOutcomeReporter): Promise<{ redemption_id: string; auth_req_id: string; outcome: OutcomeReport }> {
  const notFound = new CountersignError('not_found', 'No such redemption.');
  const parsed = parseRedemptionId(redemptionId);
  if (!parsed) throw notFound;
  // The id names its request; one made before ids did is resolved through its index.
  const authReqId = 'auth_req_id' in parsed ? parsed.auth_req_id : await deps.store.get(keys.redemption(client.tenant, redemptionId));
  const fields = authReqId && isRequestId(authReqId) ? await deps.store.hashGet(keys.request(client.tenant, authReqId)) : null;
  const request = requestOf(fields);
  // A mandate's spends each have their own redemption id, kept in the mandate's record (docs/mandates.md).
  if (reportSpendOutcome && request && request.client_id === client.client_id && mandateOf(request.authorization_details)) return reportSpendOutcome(deps, client, fields!, redemptionId, report);
  if (!request || request.client_id !== client.client_id || request.redemption_id !== redemptionId) throw notFound;

  const result = await deps.lifecycle.reportOutcome(request, redemptionId, report, deps.clock.now());
  if (!result.ok) {
    const current = result.fields ? fromFields(result.fields) : null;
    if (current && sameOutcome(current, report)) return { redemption_id: redemptionId, auth_req_id: request.auth_req_id, outcome: report };
    await deps.audit.record({
      type: 'refused',
      reason: 'outcome_conflict',
      tenant: request.tenant,
      auth_req_id: request.auth_req_id,
      client_id: client.client_id,
      sub: request.sub,
      channel: 'agent',
      detail: { redemption_id: redemptionId, status: report.status },
    });
    throw new CountersignError('outcome_conflict', 'A different outcome was already reported for this redemption.');
  }
  return { redemption_id: redemptionId, auth_req_id: request.auth_req_id, outcome: report };
}
