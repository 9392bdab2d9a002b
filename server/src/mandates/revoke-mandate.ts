import { CountersignError } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { isRequestId, loadRequest, mandateOf, type ApprovalRequest } from '../requests/index.ts';

/** Who revokes a mandate: the person's device (after a passkey assertion), or an operator. */
export type RevokedBy = { channel: 'device'; device_id: string } | { channel: 'admin' };

/**
 * Revokes a mandate: `approved → expired` with `expiry_reason: mandate_revoked` in one
 * compare-and-swap (`Lifecycle.revoke`), audited `mandate_revoked`. A spend is itself a swap
 * guarded by `state = approved` on the same record, so once this returns no spend can land: a
 * spend racing it either landed before (and is kept, audited before the revocation) or is refused
 * `mandate_revoked`. Revoking a revoked mandate answers it as it is (idempotent).
 *
 * The caller has checked who may revoke (the device route: the mandate's person, by passkey).
 *
 * @returns the mandate's request after the revocation.
 * @throws CountersignError `not_found` (404: no such mandate in the tenant), `request_not_pending`
 *   (409: the mandate is not active: still pending, denied or ended).
 */
export async function revokeMandate(deps: Deps, input: { tenant: string; auth_req_id: string; by: RevokedBy }): Promise<ApprovalRequest> {
  const notFound = new CountersignError('not_found', 'No such mandate.');
  if (!isRequestId(input.auth_req_id)) throw notFound;
  const request = await loadRequest(deps.store, input.tenant, input.auth_req_id);
  if (!request || !mandateOf(request.authorization_details)) throw notFound;
  if (request.expiry_reason === 'mandate_revoked') return request;
  const by = input.by.channel === 'device' ? input.by.device_id : 'admin';
  const result = await deps.lifecycle.revoke(request, { by, channel: input.by.channel }, deps.clock.now());
  if (result.ok) return result.request;
  if (result.fields?.expiry_reason === 'mandate_revoked') return (await loadRequest(deps.store, input.tenant, input.auth_req_id)) ?? request;
  throw new CountersignError('request_not_pending', 'The mandate is not active: there is nothing to revoke.', { status: 409 });
}
