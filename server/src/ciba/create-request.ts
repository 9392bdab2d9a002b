import { CountersignError, detailsHash } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Config } from '../config/index.ts';
import type { Deps } from '../deps.ts';
import { decideTier, drawBindingCodes, partiesOf, requestAmounts, reserveRequest, roleOf, type Tier } from '../policy/index.ts';
import { effectiveState, loadRequest, toFields, trackDeadline, type ApprovalRequest } from '../requests/index.ts';
import { keys } from '../store/index.ts';
import { findClientBlock, findUser, usersWithRole } from '../users/index.ts';
import type { BackchannelRequest } from './parse-backchannel-request.ts';
import { pushRequest } from './push-request.ts';

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
 * The live request holding a `transaction_id`, when it is the same action for the same user; null
 * when no live request holds it (none, or denied, or expired: the agent may ask again).
 * @throws CountersignError `transaction_conflict` when a live request holds it for other details.
 */
async function sameTransaction(deps: Deps, txKey: string, tenant: string, candidate: { details_hash: string; sub: string }): Promise<ApprovalRequest | null> {
  const existingId = await deps.store.get(txKey);
  const existing = existingId ? await loadRequest(deps.store, tenant, existingId) : null;
  if (!existing || ['denied', 'expired'].includes(effectiveState(existing, deps.clock.now()))) return null;
  if (existing.details_hash === candidate.details_hash && existing.sub === candidate.sub) return existing;
  throw new CountersignError('transaction_conflict', 'This transaction_id is already used for a different action.');
}

/**
 * The request's lifetime: `requested_expiry` when the client sent one, else the tier's expiry
 * (else `REQUEST_EXPIRY_DEFAULT`), never more than the tier's expiry nor `REQUEST_EXPIRY_MAX`.
 */
function expirySeconds(config: Config, tier: Tier, requested: number | null): number {
  const cap = Math.min(tier.request_expiry_seconds ?? config.requestExpiryMax, config.requestExpiryMax);
  return Math.min(requested ?? tier.request_expiry_seconds ?? config.requestExpiryDefault, cap);
}

/**
 * Stores a new approval request and starts the push to the devices of everyone who must approve.
 * It executes nothing (DESIGN.md guarantee 1) and stores the validated, canonical action
 * (guarantee 2) with its `details_hash` (guarantee 3), its policy tier and the parties the tier asks for.
 *
 * The steps, each before anything is stored or pushed: the user and a device; no block of this
 * client by this user; the `transaction_id` (the same details return the same `auth_req_id`
 * without counting again; other details are refused); the tier; then the user's pending limit
 * and the velocity windows, atomically. Only then is the request written; if writing fails, its
 * places in the windows are given back, so only requests that exist are counted.
 *
 * @throws CountersignError `unknown_user_id` (no such user, or no enrolled device), `client_blocked`
 *   (403), `transaction_conflict` (409), `too_many_pending` (429), `velocity_exceeded` (429);
 *   nothing is stored and nothing is sent.
 * @see CIBA Core 1.0 §7.1–§7.3; issue 4 (policy tiers, velocity, push fatigue)
 */
export async function createRequest(deps: Deps, client: ClientRecord, input: BackchannelRequest): Promise<CreatedRequest> {
  const { store, clock } = deps;
  const tenant = client.tenant;
  const [user, devices] = await Promise.all([findUser(store, tenant, input.login_hint), store.setMembers(keys.userDevices(tenant, input.login_hint))]);
  if (!user || devices.length === 0) throw new CountersignError('unknown_user_id', 'The user is not known or has no enrolled device.');
  if (await findClientBlock(store, tenant, user.sub, client.client_id)) {
    throw new CountersignError('client_blocked', 'The user reported a request from this client; it may not ask them again until an operator clears it.');
  }

  const hash = await detailsHash(input.authorization_details);
  const txKey = transactionKey(client, input);
  const earlier = txKey ? await sameTransaction(deps, txKey, tenant, { details_hash: hash, sub: user.sub }) : null;
  if (earlier) return { request: earlier, created: false };

  const { tier } = decideTier(deps.policy, input.authorization_details);
  const parties = partiesOf(tier);
  const expiresIn = expirySeconds(deps.config, tier, input.requested_expiry ?? null);
  const now = clock.now();
  // Number matching is about the agent's screen in front of the person the request is for, so only they pick.
  const codes = tier.number_matching && parties.includes('customer') ? drawBindingCodes(deps.ids) : null;
  const request: ApprovalRequest = {
    auth_req_id: deps.ids(32),
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
    parties,
    approvals: [],
    token_lifetime: tier.token_lifetime_seconds ?? deps.config.approvalTokenTtl,
    ...(codes ? { binding_code: codes.binding_code, code_candidates: codes.candidates } : {}),
  };

  const reservation = await reserveRequest(deps, { tenant, sub: user.sub, client_id: client.client_id, auth_req_id: request.auth_req_id, expires_at: request.expires_at, amounts: requestAmounts(input.authorization_details) });
  const requestKey = keys.request(tenant, request.auth_req_id);
  try {
    // The client_notification_token is kept beside the request for the ping or push, never in it (CIBA Core §7.1).
    const fields = toFields(request, { client_notification_token: client.token_delivery_mode === 'poll' ? null : input.client_notification_token });
    await store.hashCreate(requestKey, fields, expiresIn + deps.config.graceSeconds);
    if (txKey && !(await store.set(txKey, request.auth_req_id, { onlyIfAbsent: true, ttlSeconds: deps.config.retentionSeconds }))) {
      // Another request took the transaction_id since the check above (a concurrent retry), or its holder is over.
      const raced = await sameTransaction(deps, txKey, tenant, request);
      if (raced) {
        await Promise.all([store.delete(requestKey), reservation.release()]);
        return { request: raced, created: false };
      }
      await store.set(txKey, request.auth_req_id, { ttlSeconds: deps.config.retentionSeconds });
    }
  } catch (error) {
    await Promise.all([store.delete(requestKey), reservation.release()]);
    throw error;
  }

  const roles = parties.map(roleOf).filter((role): role is string => role !== null);
  const reviewers = [...new Set((await Promise.all(roles.map((role) => usersWithRole(store, tenant, role)))).flat())].filter((sub) => sub !== user.sub);
  const indexTtl = deps.config.requestExpiryMax + deps.config.graceSeconds;
  await Promise.all([
    store.setAdd(keys.userRequests(tenant, user.sub), request.auth_req_id, indexTtl),
    ...roles.map((role) => store.setAdd(keys.roleRequests(tenant, role), request.auth_req_id, indexTtl)),
    trackDeadline(store, request, indexTtl),
  ]);
  await deps.audit.record({
    type: 'proposed',
    tenant,
    auth_req_id: request.auth_req_id,
    client_id: client.client_id,
    sub: user.sub,
    channel: 'agent',
    detail: { details_hash: request.details_hash, expires_in: expiresIn, tier: tier.name, parties: parties.join(' '), number_matching: codes !== null },
  });
  for (const sub of [user.sub, ...reviewers]) deps.events.publish(tenant, sub, { auth_req_id: request.auth_req_id, state: 'pending' });
  const recipients = [...(parties.includes('customer') ? [user.sub] : []), ...reviewers];
  deps.background.run('push', () => pushRequest(deps, request, recipients));
  return { request, created: true };
}
