import { CountersignError, type AuthorizationDetails, type MandateDetails, type RedeemResponse, type Redemption } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { mandateOf, requestOf, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { checkPreconditions } from './check-preconditions.ts';
import { hashAsPresented, type PresentedAction } from './presented-action.ts';
import { invalidToken, proveToken, type PresentedToken } from './presented-token.ts';
import { newRedemptionId } from './redemption-id.ts';

/**
 * Spends a mandate's token on one presented payment (`server/src/mandates`, docs/mandates.md),
 * given to the redemption routes by the composition (`app.ts`), so this folder does not import
 * the mandates, which build on it. The token's client is the caller's already; the spend proves
 * the token (`proveToken`) before it answers anything its record says.
 */
export type MandateSpender = (deps: Deps, token: PresentedToken, mandate: MandateDetails, presented: PresentedAction, currentVersions: Record<string, string>) => Promise<RedeemResponse>;

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

function approvalMismatch(): CountersignError {
  return new CountersignError('approval_mismatch', 'The action differs from the one that was approved.');
}

/**
 * Redeems a presented approval token (`readPresentedToken`) against the exact action the executor
 * is about to run.
 *
 * The token's signature is not verified: the token issued for a request is known by its hash,
 * kept with the request when it was issued (`token_hash`), and the redemption's compare-and-swap is
 * guarded by that hash, so only the token issued for the record passes it. Until the token is
 * proven so (by that swap, or on a refusal by reading the record, `proveToken`), its claims are
 * only where to look: every refusal of a token not proven is `invalid_token`, and is filed under no
 * approval. A record bound before hashes were kept is redeemed as before: signature verified, then
 * the swap guards the `jti`.
 *
 * In order: the token must be the calling client's; the presented action, exactly as it was
 * written, is hashed (JCS, SHA-256) and compared with the token's `details_hash`: it must be the
 * approved canonical form byte for byte after JCS (member order and white space aside), so display
 * text in another normal form or with other spaces, and numbers spelled `49000.0`, `4.9e4` or `-0`,
 * are `approval_mismatch` (`/bc-authorize` stores that form and the token response returns it, so
 * an executor has it to present); each action's `precondition` must name the version the executor
 * states in `currentVersions`; then `approved → redeemed` happens in one compare-and-swap guarded by
 * the state, the token's hash, the approval's deadline and the stored `details_hash` being the
 * presented one. The request is not read first: only a swap that fails reads it (the swap answers
 * the record as it stands) to say why. A refusal changes nothing: after `stale_record` the approval
 * stays approved (and redeemable against the approved version until it expires). A redemption is
 * audited and indexed for the outcome deadline (`OUTCOME_TIMEOUT`).
 *
 * Round trips in sequence: the swap's outbox mark, the swap (`Lifecycle.redeem`), then its
 * consequences (audit ∥ outcome deadline ∥ the approval's deadline out of the expiry index ∥
 * publish); the device history follows in the background. The redemption's id names its request
 * (`newRedemptionId`), so no index is written beside the swap.
 *
 * @param presented - the action as the executor wrote it (see {@link PresentedAction}).
 * @param currentVersions - record → version as the executor reads them now (`current_versions`).
 * @throws CountersignError `invalid_token` (401, for an unknown request, a token not the one
 *   issued for it, or one no longer redeemable), `unauthorized_client` (403), `approval_mismatch`
 *   (400), `stale_record` (409, with `records`), `already_redeemed` (409, with `redemption`).
 * @see docs/design.md guarantees 2, 3, 6 and 7; RFC 8785; RFC 9068 §4
 */
export async function redeemPresented(deps: Deps, client: ClientRecord, token: PresentedToken, presented: PresentedAction, currentVersions: Record<string, string> = {}, spendMandate?: MandateSpender): Promise<RedeemResponse> {
  try {
    return await redeemToken(deps, client, token, presented, currentVersions, spendMandate);
  } catch (refusal) {
    // A refusal about the approval is answered only once the token is proven to be its token.
    if (refusal instanceof CountersignError && refusal.code !== 'invalid_token' && !token.authentic) {
      await proveToken(deps, token, await deps.store.hashGet(keys.request(token.claims.tenant, token.claims.auth_req_id)));
    }
    throw refusal;
  }
}

async function redeemToken(deps: Deps, client: ClientRecord, token: PresentedToken, presented: PresentedAction, currentVersions: Record<string, string>, spendMandate?: MandateSpender): Promise<RedeemResponse> {
  const now = deps.clock.now();
  const { claims } = token;
  if (claims.client_id !== client.client_id || claims.tenant !== client.tenant) {
    throw new CountersignError('unauthorized_client', 'This approval was not issued to this client.', { status: 403 });
  }
  // A mandate's token is spent, one payment at a time, within its bounds (docs/mandates.md).
  const mandate = mandateOf(claims.authorization_details);
  if (mandate) {
    if (!spendMandate) throw invalidToken('This server does not spend mandates.');
    return spendMandate(deps, token, mandate, presented, currentVersions);
  }

  const presentedHash = await hashAsPresented(presented);
  if (presentedHash === null || presentedHash !== claims.details_hash) throw approvalMismatch();
  // Hash-equal to what the token holds: once the token is proven, the presented action is the
  // approved one, validated when it was stored, member for member (equal JCS texts are equal JSON values).
  checkPreconditions(presented.details as AuthorizationDetails, currentVersions);

  const ref = { tenant: claims.tenant, auth_req_id: claims.auth_req_id };
  const redemptionId = newRedemptionId(deps.ids, ref.auth_req_id);
  const guard = { jti: claims.jti, details_hash: presentedHash, redemption_id: redemptionId };
  // A swap that fails without an answer (a timeout) may still have run: the error reaches the caller
  // as an unknown outcome (503), a retry reads `already_redeemed` with the redemption if it did, and
  // the outbox's reconciler delivers its consequences (audit, outcome deadline) either way.
  let swapped = await deps.lifecycle.redeem(ref, { ...guard, hash: token.hash }, now);
  if (!swapped.ok) {
    await proveToken(deps, token, swapped.fields);
    if (token.legacy) swapped = await deps.lifecycle.redeem(ref, guard, now);
  }
  if (!swapped.ok) {
    const current = requestOf(swapped.fields);
    if (!current) throw invalidToken('The approval no longer exists.');
    if (current.details_hash !== presentedHash) throw approvalMismatch();
    if (current.state === 'redeemed') {
      throw new CountersignError('already_redeemed', 'This approval was already redeemed.', { body: { redemption: redemptionOf(current) } });
    }
    throw invalidToken('The approval is no longer redeemable.');
  }
  token.authentic = true;
  const redeemed = swapped.request;
  return {
    status: 'redeemed',
    redemption_id: redemptionId,
    idempotency_key: idempotencyKey(redeemed),
    authorization_details: redeemed.authorization_details,
    redeemed_at: new Date(now).toISOString(),
  };
}
