import { CountersignError, detailsHash } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { drawBindingCodes, requestAmounts, requestReach, reserveRequest } from '../policy/index.ts';
import { checkMandateDates } from '../mandates/index.ts';
import { mandateOf, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { findClientBlock, findUser } from '../users/index.ts';
import { checkApprovers } from './check-approvers.ts';
import type { BackchannelRequest } from './parse-backchannel-request.ts';
import { holdersOf, rate, settleRating } from './rate-request.ts';
import { expirySeconds } from './request-expiry.ts';
import { sameTransaction, storeRequest } from './store-request.ts';

/**
 * Random bytes in an `auth_req_id`: 160 bits, the entropy CIBA Core 1.0 §7.3 recommends (it requires
 * at least 128). It appears in about a dozen Redis keys and members per request, so each byte more
 * costs memory on every pending request (27 characters of base64url, against 43 for 256 bits).
 */
export const AUTH_REQ_ID_BYTES = 20;

/** The `/bc-authorize` answer: the request's id, seconds left and the polling interval. */
export interface CreatedRequest {
  request: ApprovalRequest;
  /** False when an earlier request with the same `transaction_id` and details was returned. */
  created: boolean;
}

function transactionKey(client: ClientRecord, input: BackchannelRequest): string | null {
  const ids = input.authorization_details.map((detail) => detail.transaction_id).filter(Boolean);
  return ids.length ? keys.transaction(client.tenant, client.client_id, ids.join(',')) : null;
}

/**
 * Stores a new approval request and starts the push to the devices of everyone who must approve.
 * It executes nothing (docs/design.md guarantee 1) and stores the validated, canonical action
 * (guarantee 2) with its `details_hash` (guarantee 3), its policy tier and the parties the tier asks for,
 * rated under its tenant's current policy revision, which it keeps (`policy_revision`): a later
 * change of the tenant's policy changes nothing about it.
 *
 * The checks, each before anything is stored or pushed, refused in this order: the user and a
 * device; no block of this client by this user; the `transaction_id` (the same details return the
 * same `auth_req_id` without counting again; other details are refused); an approver for each role
 * the tier needs (`approverCoverage`, in {@link checkApprovers}: a holder of it other than the user, who never reviews
 * their own request, and a different person for each role; a holder counts whether or not they
 * have enrolled a device yet); then the user's pending limit and the velocity windows, atomically each. Only then is the request
 * written; if writing fails, everything written for it is taken back and its places in the
 * windows are given back, so only requests that exist are counted.
 *
 * What does not depend on each other goes to the store together, so a request waits on four
 * round trips in sequence: (user ∥ devices ∥ blocks ∥ `transaction_id` ∥ the holders of each role
 * the tier needs ∥ the tenant's policy revision) → (the three windows, one of them the user's pending requests: their inbox) →
 * (request ∥ `transaction_id` SET NX ∥ role queues ∥ deadline index) →
 * (audit ∥ live update). A known `transaction_id` costs one more (its request is read); so does a
 * policy revision this instance has not seen yet (read once, then cached), and its roles' holders
 * when the new revision asks for other roles.
 *
 * @throws CountersignError `unknown_user_id` (no such user, or no enrolled device), `client_blocked`
 *   (403), `transaction_conflict` (409), `no_approver` (naming the roles nobody can approve as,
 *   the roles of the tier's escalation chain included),
 *   `too_many_pending` (429), `velocity_exceeded` (429);
 *   nothing is stored and nothing is sent.
 * @see CIBA Core 1.0 §7.1–§7.3; docs/guarantees.md "The controls of the gate" (policy tiers,
 * velocity, push fatigue)
 */
export async function createRequest(deps: Deps, client: ClientRecord, input: BackchannelRequest): Promise<CreatedRequest> {
  const { store, clock } = deps;
  const tenant = client.tenant;
  const sub = input.login_hint;
  const hash = await detailsHash(input.authorization_details);
  const txKey = transactionKey(client, input);
  // The tier depends on the action and the tenant's policy alone, so the holders of the roles it
  // needs are read beside the user, under the revision this instance last saw; the store's current
  // revision is read with them (another instance may have changed it), and only when it differs is
  // the request rated again, and the holders read again if its roles changed (`rate-request.ts`).
  const guessed = rate(deps.policies.lastKnown(tenant), input.authorization_details);
  // The user record is stored under its `sub`, so its blocks can be read beside it.
  const [user, devices, block, heldBy, holdersAssumed, revision] = await Promise.all([
    findUser(store, tenant, sub),
    store.setMembers(keys.userDevices(tenant, sub)),
    findClientBlock(store, tenant, sub, client.client_id),
    txKey ? store.get(txKey) : null,
    // The roles of the tier's escalation chain after its own: each must have a holder too.
    holdersOf(store, tenant, [...guessed.roles, ...guessed.escalationRoles]),
    deps.policies.revision(tenant),
  ]);
  const { rating, holders } = await settleRating(deps, tenant, input.authorization_details, { rating: guessed, holders: holdersAssumed }, revision);
  const { rated, tier, parties, roles, escalationRoles } = rating;
  // A mandate's dates, against the clock and its type's maximum duration, before anything is stored.
  checkMandateDates(rated.policy, input.authorization_details, clock.now());
  if (!user || devices.length === 0) throw new CountersignError('unknown_user_id', 'The user is not known or has no enrolled device.');
  if (block) {
    throw new CountersignError('client_blocked', 'The user reported a request from this client; it may not ask them again until an operator clears it.');
  }
  const earlier = heldBy ? await sameTransaction(deps, heldBy, tenant, { details_hash: hash, sub: user.sub }) : null;
  if (earlier) return { request: earlier, created: false };
  // A request nobody could approve is refused before any place in a limit window is taken.
  checkApprovers(roles, escalationRoles, holders, user.sub);

  const expiresIn = expirySeconds(deps.config, tier, input.requested_expiry ?? null);
  const now = clock.now();
  const mandate = mandateOf(input.authorization_details);
  // Number matching is about the agent's screen in front of the person the request is for, so only they pick.
  const codes = tier.number_matching && parties.includes('customer') ? drawBindingCodes(deps.ids) : null;
  const request: ApprovalRequest = {
    auth_req_id: deps.ids(AUTH_REQ_ID_BYTES),
    tenant,
    client_id: client.client_id,
    client_name: client.name,
    sub: user.sub,
    scope: input.scope,
    binding_message: input.binding_message,
    authorization_details: input.authorization_details,
    details_hash: hash,
    state: 'pending',
    created_at: now,
    expires_at: now + expiresIn * 1000,
    interval: deps.config.pollInterval,
    token_delivery_mode: client.token_delivery_mode,
    outcome: null,
    tier: tier.name,
    ...(rated.revision > 0 ? { policy_revision: rated.revision } : {}),
    parties,
    approvals: [],
    // A mandate's token lives until its end (docs/mandates.md): its deadline and record TTLs follow.
    token_lifetime: mandate ? Math.max(1, Math.ceil((Date.parse(mandate.ends_at) - now) / 1000)) : (tier.token_lifetime_seconds ?? deps.config.approvalTokenTtl),
    ...(codes ? { binding_code: codes.binding_code, code_candidates: codes.candidates } : {}),
    // The chain as the policy says it now, fixed on the request: a later policy change does not alter it.
    ...(tier.escalation ? { escalation: tier.escalation.map((step) => ({ at: now + step.after_seconds * 1000, party: `role:${step.to.role}` as const })), escalation_step: 0 } : {}),
  };

  const reservation = await reserveRequest({ ...deps, policy: rated.policy }, { tenant, sub: user.sub, client_id: client.client_id, auth_req_id: request.auth_req_id, expires_at: request.expires_at, amounts: requestAmounts(input.authorization_details), ...requestReach(input.authorization_details) });
  const notificationToken = client.token_delivery_mode === 'poll' ? null : input.client_notification_token;
  const stored = await storeRequest(deps, request, { txKey, expiresIn, roles, notificationToken, reservation });
  if (!stored.created) return { request: stored.raced, created: false };

  // Its consequences (`consequences.ts`): the audit and the live update before the answer, the push after.
  await deps.outbox.created(request, stored.mark);
  return { request, created: true };
}
