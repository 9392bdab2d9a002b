import { CountersignError, detailsHash, displayAction } from '@countersign/shared';
import type { ClientRecord } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { effectiveState, loadRequest, toFields, trackDeadline, type ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { findUser } from '../users/index.ts';
import type { BackchannelRequest } from './parse-backchannel-request.ts';

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
 * Stores a new approval request and starts the push to the user's devices. It executes nothing
 * (DESIGN.md guarantee 1) and stores the validated, canonical action (guarantee 2) with its
 * `details_hash` (guarantee 3).
 *
 * A `transaction_id` makes the call idempotent per client: the same details return the same
 * `auth_req_id`; other details are refused with `transaction_conflict`. An earlier request that
 * was denied or has expired no longer holds the `transaction_id`, so the agent may ask again.
 *
 * @throws CountersignError `unknown_user_id` (no such user, or no enrolled device: nothing is
 *   stored, nothing is sent), `transaction_conflict` (409).
 * @see CIBA Core 1.0 §7.1–§7.3
 */
export async function createRequest(deps: Deps, client: ClientRecord, input: BackchannelRequest): Promise<CreatedRequest> {
  const { store, clock } = deps;
  const tenant = client.tenant;
  const [user, devices] = await Promise.all([
    findUser(store, tenant, input.login_hint),
    store.setMembers(keys.userDevices(tenant, input.login_hint)),
  ]);
  if (!user || devices.length === 0) throw new CountersignError('unknown_user_id', 'The user is not known or has no enrolled device.');

  const now = clock.now();
  const request: ApprovalRequest = {
    auth_req_id: deps.ids(32),
    tenant,
    client_id: client.client_id,
    client_name: client.name,
    sub: user.sub,
    scope: input.scope,
    binding_message: input.binding_message,
    authorization_details: input.authorization_details,
    details_hash: await detailsHash(input.authorization_details),
    state: 'pending',
    created_at: now,
    expires_at: now + input.expires_in * 1000,
    interval: deps.config.pollInterval,
    token_delivery_mode: client.token_delivery_mode,
    outcome: null,
  };
  const requestKey = keys.request(tenant, request.auth_req_id);
  // The client_notification_token is kept beside the request for the ping or push, never in it (CIBA Core §7.1).
  const fields = toFields(request, { client_notification_token: client.token_delivery_mode === 'poll' ? null : input.client_notification_token });
  await store.hashCreate(requestKey, fields, input.expires_in + deps.config.graceSeconds);

  const txKey = transactionKey(client, input);
  if (txKey && !(await store.set(txKey, request.auth_req_id, { onlyIfAbsent: true, ttlSeconds: deps.config.retentionSeconds }))) {
    const existingId = await store.get(txKey);
    const existing = existingId ? await loadRequest(store, tenant, existingId) : null;
    const live = existing && !['denied', 'expired'].includes(effectiveState(existing, now));
    if (existing && live && existing.details_hash === request.details_hash && existing.sub === request.sub) {
      await store.delete(requestKey);
      return { request: existing, created: false };
    }
    if (existing && live) {
      await store.delete(requestKey);
      throw new CountersignError('transaction_conflict', 'This transaction_id is already used for a different action.');
    }
    await store.set(txKey, request.auth_req_id, { ttlSeconds: deps.config.retentionSeconds });
  }

  const indexTtl = deps.config.requestExpiryMax + deps.config.graceSeconds;
  await Promise.all([store.setAdd(keys.userRequests(tenant, user.sub), request.auth_req_id, indexTtl), trackDeadline(store, request, indexTtl)]);
  await deps.audit.record({
    type: 'proposed',
    tenant,
    auth_req_id: request.auth_req_id,
    client_id: client.client_id,
    sub: user.sub,
    channel: 'agent',
    detail: { details_hash: request.details_hash, expires_in: input.expires_in },
  });
  deps.events.publish(tenant, user.sub, { auth_req_id: request.auth_req_id, state: 'pending' });
  deps.background.run('push', () => pushRequest(deps, request));
  return { request, created: true };
}

/** Sends the new request to every device of the user and audits how many pushes went out. */
async function pushRequest(deps: Deps, request: ApprovalRequest): Promise<void> {
  const first = displayAction(request.authorization_details[0]!);
  const result = await deps.push.notifyUser({
    tenant: request.tenant,
    sub: request.sub,
    auth_req_id: request.auth_req_id,
    summary: `${request.client_name}: ${first.summary}`,
    ttlSeconds: secondsUntil(request.expires_at, deps.clock.now()),
  });
  await deps.audit.record({
    type: 'pushed',
    tenant: request.tenant,
    auth_req_id: request.auth_req_id,
    sub: request.sub,
    channel: 'push',
    detail: { sent: result.sent, removed: result.removed, failed: result.failed },
  });
}
