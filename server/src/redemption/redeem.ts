import { CountersignError, detailsHash, type AuthorizationDetails, type MandateDetails, type RedeemResponse, type Redemption } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { isRequestId, loadRequest, mandateOf, requestOf, type ApprovalRequest } from '../requests/index.ts';
import { verifyApprovalToken, type ApprovalClaims } from '../tokens/index.ts';
import { checkPreconditions } from './check-preconditions.ts';
import { newRedemptionId } from './redemption-id.ts';

/**
 * Spends a mandate's token on one presented payment (`server/src/mandates`, docs/mandates.md),
 * given to the redemption routes by the composition (`app.ts`), so this folder does not import
 * the mandates, which build on it.
 */
export type MandateSpender = (deps: Deps, client: ClientRecord, claims: ApprovalClaims, mandate: MandateDetails, presented: PresentedAction, currentVersions: Record<string, string>) => Promise<RedeemResponse>;

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

/** 401 `invalid_token`, with its challenge: the approval is unknown, or no longer redeemable. @see RFC 6750 §3.1 */
function invalidToken(description: string): CountersignError {
  return new CountersignError('invalid_token', description, { headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' } });
}

function approvalMismatch(): CountersignError {
  return new CountersignError('approval_mismatch', 'The action differs from the one that was approved.');
}

/** The action an executor presents to `/redeem`, as it wrote it. */
export interface PresentedAction {
  /** `authorization_details` as parsed from the body, untouched by any schema. */
  details: unknown;
  /** Whether every number in it was written as JCS writes it (`49000` or `1.5`, not `49000.0`, `4.9e4`, `1.50` or `-0`; see `isJcsNumber`). */
  numbersExact: boolean;
  /** How deep its arrays and objects nest (at most: the body's depth will do). */
  depth: number;
}

/**
 * Deeper than any registered action nests (a payment is 3 deep: the array, the action, its
 * payee): a presented action deeper than this cannot be the approved one, and is not hashed,
 * since JCS recurses once per level.
 */
const MAX_ACTION_DEPTH = 32;

/**
 * The `details_hash` of the action as presented: JCS of exactly what the executor sent, with no
 * schema in between. A schema would NFC-normalise and trim the display text first, so `"ACME Ltd "`
 * or an NFD `"Zoe\u0308"` would hash as the approved `"ACME Ltd"` and `"Zoë"`: the executor would be
 * told "approved" for bytes the person never saw, and act on them. Null when it cannot match: a
 * number spelled otherwise than the approved (canonical) form writes it, nesting deeper than any
 * action, or no action at all.
 */
async function hashAsPresented(presented: PresentedAction): Promise<string | null> {
  if (!presented.numbersExact || presented.depth > MAX_ACTION_DEPTH || presented.details === undefined) return null;
  return detailsHash(presented.details);
}

/**
 * Verifies an approval token presented to `/redeem` (signature, explicit algorithms, issuer,
 * audience, expiry) and answers its claims: the first step of a redemption, before
 * {@link redeemVerified}. Apart, so that the caller knows which approval a later refusal concerns
 * (and audits it in that approval's tenant) only once the token has verified.
 * @throws CountersignError `invalid_token` (401).
 * @see RFC 9068 §4
 */
export async function verifyRedemptionToken(deps: Deps, token: string): Promise<ApprovalClaims> {
  const now = deps.clock.now();
  try {
    return await verifyApprovalToken(deps.keyRing, deps.config.publicUrl, token, now);
  } catch (error) {
    // A mandate's token expires with the mandate: for the grace period after, a spend is told
    // `mandate_expired` by the spend's own check (docs/mandates.md), not a bare `invalid_token`.
    const late = await verifyApprovalToken(deps.keyRing, deps.config.publicUrl, token, now - deps.config.graceSeconds * 1000).catch(() => null);
    if (late && mandateOf(late.authorization_details)) return late;
    throw error;
  }
}

/**
 * Redeems an approval token, whose `claims` {@link verifyRedemptionToken} answered, against the
 * exact action the executor is about to run.
 *
 * In order: the token must belong to the calling client; the presented action, exactly as it was
 * written, is hashed (JCS, SHA-256) and compared with the token's `details_hash`: it must be the
 * approved canonical form byte for byte after JCS (member order and white space aside), so display
 * text in another normal form or with other spaces, and numbers spelled `49000.0`, `4.9e4` or `-0`,
 * are `approval_mismatch` (`/bc-authorize` stores that form and the token response returns it, so
 * an executor has it to present); each action's
 * `precondition` must name the version the executor states in `currentVersions` (checked against
 * the presented action, which is the approved one byte for byte once its hash is the token's); then
 * `approved → redeemed` happens in one compare-and-swap guarded by the state, the token's `jti`, the
 * approval's deadline and the stored `details_hash` being the presented one. The request is not
 * read first: only a swap that fails reads it (the swap answers the record as it stands) to say
 * why. A refusal changes nothing: after `stale_record` the approval stays approved (and redeemable
 * against the approved version until it expires). A redemption is audited and indexed for the
 * outcome deadline (`OUTCOME_TIMEOUT`).
 *
 * Round trips in sequence: the swap's outbox mark, the swap (`Lifecycle.redeem`), then its
 * consequences (audit ∥ outcome deadline ∥ the approval's deadline out of the expiry index ∥
 * publish); the device history follows in the background. The redemption's id names its request
 * (`newRedemptionId`), so no index is written beside the swap. A refusal before the swap reads the request once, so an unknown one still
 * answers `invalid_token` first, as it always has.
 *
 * @param presented - the action as the executor wrote it (see {@link PresentedAction}).
 * @param currentVersions - record → version as the executor reads them now (`current_versions`).
 * @throws CountersignError `invalid_token` (401, for an unknown request or one no longer
 *   redeemable), `unauthorized_client` (403), `approval_mismatch` (400), `stale_record` (409, with
 *   `records`), `already_redeemed` (409, with `redemption`).
 * @see docs/design.md guarantees 2, 3, 6 and 7; RFC 8785
 */
export async function redeemVerified(deps: Deps, client: ClientRecord, claims: ApprovalClaims, presented: PresentedAction, currentVersions: Record<string, string> = {}, spendMandate?: MandateSpender): Promise<RedeemResponse> {
  const now = deps.clock.now();
  if (claims.client_id !== client.client_id || claims.tenant !== client.tenant) {
    throw new CountersignError('unauthorized_client', 'This approval was not issued to this client.', { status: 403 });
  }
  const tenant = claims.tenant;
  const authReqId = claims.auth_req_id;
  if (!isRequestId(authReqId)) throw invalidToken('The approval no longer exists.');
  // A mandate's token is spent, one payment at a time, within its bounds (docs/mandates.md).
  const mandate = mandateOf(claims.authorization_details);
  if (mandate) {
    if (!spendMandate) throw invalidToken('This server does not spend mandates.');
    return spendMandate(deps, client, claims, mandate, presented, currentVersions);
  }

  const presentedHash = await hashAsPresented(presented);
  try {
    if (presentedHash === null || presentedHash !== claims.details_hash) throw approvalMismatch();
    // Hash-equal to what the token (and so the request) holds: the presented action is the approved
    // one, validated when it was stored, member for member (equal JCS texts are equal JSON values).
    checkPreconditions(presented.details as AuthorizationDetails, currentVersions);
  } catch (refusal) {
    // An approval that no longer exists is `invalid_token` before anything about the action.
    if (!(await loadRequest(deps.store, tenant, authReqId))) throw invalidToken('The approval no longer exists.');
    throw refusal;
  }

  const redemptionId = newRedemptionId(deps.ids, authReqId);
  // A swap that fails without an answer (a timeout) may still have run: the error reaches the caller
  // as an unknown outcome (503), a retry reads `already_redeemed` with the redemption if it did, and
  // the outbox's reconciler delivers its consequences (audit, outcome deadline) either way.
  const swapped = await deps.lifecycle.redeem({ tenant, auth_req_id: authReqId }, { jti: claims.jti, details_hash: presentedHash, redemption_id: redemptionId }, now);
  if (!swapped.ok) {
    const current = requestOf(swapped.fields);
    if (!current) throw invalidToken('The approval no longer exists.');
    if (current.details_hash !== presentedHash) throw approvalMismatch();
    if (current.state === 'redeemed') {
      throw new CountersignError('already_redeemed', 'This approval was already redeemed.', { body: { redemption: redemptionOf(current) } });
    }
    throw invalidToken('The approval is no longer redeemable.');
  }
  const redeemed = swapped.request;
  return {
    status: 'redeemed',
    redemption_id: redemptionId,
    idempotency_key: idempotencyKey(redeemed),
    authorization_details: redeemed.authorization_details,
    redeemed_at: new Date(now).toISOString(),
  };
}
