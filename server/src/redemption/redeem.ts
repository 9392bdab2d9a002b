import { authorizationDetails, CountersignError, detailsHash, type RedeemResponse, type Redemption } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { fromFields, loadRequest, trackOutcomeDeadline, type ApprovalRequest } from '../requests/index.ts';
import { recordHistory } from '../devices/index.ts';
import { keys } from '../store/index.ts';
import { verifyApprovalToken } from '../tokens/index.ts';
import { checkPreconditions } from './check-preconditions.ts';

/** The record a second redeem is answered with (`already_redeemed`). */
export function redemptionOf(request: ApprovalRequest): Redemption {
  return {
    redemption_id: request.redemption_id!,
    redeemed_at: new Date(request.redeemed_at!).toISOString(),
    outcome: request.outcome ?? { status: 'unknown' },
  };
}

/** The key the executor passes on to the system that runs the action: the client's `transaction_id`, or the request's id. */
function idempotencyKey(request: ApprovalRequest): string {
  const ids = request.authorization_details.map((detail) => detail.transaction_id).filter(Boolean);
  return ids.length ? ids.join(',') : request.auth_req_id;
}

/**
 * Redeems an approval token against the exact action the executor is about to run.
 *
 * In order: the token is verified (signature, explicit algorithms, issuer, audience, expiry); it
 * must belong to the calling client; the presented action is validated, re-hashed (JCS, SHA-256)
 * and compared with the token's `details_hash` and with the stored one; each action's
 * `precondition` must name the version the executor states in `currentVersions`; then
 * `approved → redeemed` happens in one compare-and-swap guarded by the token's `jti` and the
 * approval's deadline. A refusal changes nothing: after `stale_record` the approval stays approved
 * (and redeemable against the approved version until it expires). A redemption is audited and
 * indexed for the outcome deadline (`OUTCOME_TIMEOUT`).
 *
 * @param currentVersions - record → version as the executor reads them now (`current_versions`).
 * @throws CountersignError `invalid_token` (401), `unauthorized_client` (403), `approval_mismatch`
 *   (400), `stale_record` (409, with `records`), `already_redeemed` (409, with `redemption`).
 * @see DESIGN.md guarantees 3, 6 and 7; RFC 9068 §4
 */
export async function redeem(deps: Deps, client: ClientRecord, token: string, presented: unknown, currentVersions: Record<string, string> = {}): Promise<RedeemResponse> {
  const now = deps.clock.now();
  const claims = await verifyApprovalToken(deps.keyRing, deps.config.publicUrl, token, now);
  if (claims.client_id !== client.client_id || claims.tenant !== client.tenant) {
    throw new CountersignError('unauthorized_client', 'This approval was not issued to this client.', { status: 403 });
  }
  const request = await loadRequest(deps.store, claims.tenant, claims.auth_req_id);
  if (!request) throw new CountersignError('invalid_token', 'The approval no longer exists.', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });

  const parsed = authorizationDetails.safeParse(presented);
  const presentedHash = parsed.success ? await detailsHash(parsed.data) : null;
  if (presentedHash === null || presentedHash !== claims.details_hash || presentedHash !== request.details_hash) {
    throw new CountersignError('approval_mismatch', 'The action differs from the one that was approved.');
  }
  checkPreconditions(request.authorization_details, currentVersions);

  const redemptionId = deps.ids(16, 'rdm_');
  // The index is written before the swap, so a winner's id is always resolvable; a loser's entry points at a request whose redemption_id differs and is ignored.
  await deps.store.set(keys.redemption(request.tenant, redemptionId), request.auth_req_id, { ttlSeconds: deps.config.retentionSeconds });
  const result = await deps.store.compareAndSet(
    keys.request(request.tenant, request.auth_req_id),
    [
      { field: 'state', op: 'eq', value: 'approved' },
      { field: 'token_jti', op: 'eq', value: claims.jti },
      { field: 'approval_expires_at', op: 'gt', value: now },
    ],
    { state: 'redeemed', redemption_id: redemptionId, redeemed_at: String(now), outcome_status: 'unknown' },
    { ttlSeconds: deps.config.retentionSeconds },
  );
  if (!result.ok) {
    await deps.store.delete(keys.redemption(request.tenant, redemptionId));
    const current = result.fields ? fromFields(result.fields) : null;
    if (current?.state === 'redeemed') {
      throw new CountersignError('already_redeemed', 'This approval was already redeemed.', { body: { redemption: redemptionOf(current) } });
    }
    throw new CountersignError('invalid_token', 'The approval is no longer redeemable.', { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
  }
  const redeemed = fromFields(result.fields!);
  await deps.audit.record({
    type: 'redeemed',
    tenant: request.tenant,
    auth_req_id: request.auth_req_id,
    client_id: client.client_id,
    sub: request.sub,
    channel: 'agent',
    detail: { redemption_id: redemptionId },
  });
  // Until the outcome arrives, the sweeper will flag it `outcome_unknown` once this deadline passes.
  await trackOutcomeDeadline(deps.store, request, now + deps.config.outcomeTimeoutSeconds * 1000, deps.config.retentionSeconds);
  deps.events.publish(request.tenant, request.sub, { auth_req_id: request.auth_req_id, state: 'redeemed' });
  deps.background.run('history', () => recordHistory(deps, redeemed));
  return {
    status: 'redeemed',
    redemption_id: redemptionId,
    idempotency_key: idempotencyKey(redeemed),
    authorization_details: redeemed.authorization_details,
    redeemed_at: new Date(now).toISOString(),
  };
}
