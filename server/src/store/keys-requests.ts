/**
 * The keys of approval requests and what gates them: the request, its idempotency and redemption
 * ids, decision challenges, the inboxes and the policy's pending, push and velocity windows, role
 * inboxes and a user's client blocks.
 * Part of `keys` (see `keys.ts`, which holds the rules every key follows).
 */
export const requestKeys = {
  /** Hash: one approval request, its state, poll rate and redemption. */
  request: (tenant: string, authReqId: string) => `req:{${tenant}:${authReqId}}`,
  /** String: `transaction_id` → `auth_req_id` of the same client (idempotency). */
  transaction: (tenant: string, clientId: string, transactionId: string) => `txn:{${tenant}:${clientId}}:${transactionId}`,
  /**
   * String: `redemption_id` → `auth_req_id`, for redemptions made before a redemption's id named its
   * request (`redemption/redemption-id.ts`); read for those, no longer written.
   */
  redemption: (tenant: string, redemptionId: string) => `rdm:{${tenant}:${redemptionId}}`,
  /** String (single use): a WebAuthn decision challenge → its nonce record. */
  decisionChallenge: (tenant: string, challenge: string) => `chl:{${tenant}}:${challenge}`,
  /**
   * Hash: the decision challenges one device was shown for one request, prompt name (`deny`,
   * `approve`, `approve:<code>`) → challenge, and `viewed_at`; until the request's deadline. A view
   * shows these again while they are live instead of minting new ones (see `devices/live-prompts.ts`).
   */
  livePrompts: (tenant: string, authReqId: string, deviceId: string) => `prompts:{${tenant}:${authReqId}}:${deviceId}`,
  /**
   * Set: the `auth_req_id`s that were waiting for one user, before `pendingRequests` held them. No
   * longer written; read (and emptied) by the inbox until the requests in it are over, then gone
   * with its TTL.
   */
  userRequests: (tenant: string, sub: string) => `inbox:{${tenant}:${sub}}`,
  /** Sorted set: one user's mandate requests (docs/mandates.md), `auth_req_id` scored by creation (epoch ms): what the device's mandate list reads. */
  userMandates: (tenant: string, sub: string) => `mandates:{${tenant}:${sub}}`,
  /**
   * Sorted set (`Store.sortedWindowAdd`): a user's pending `auth_req_id`s, scored by deadline (epoch
   * ms). It is both the policy's pending-requests limit and the user's inbox (one copy of the ids,
   * not two).
   */
  pendingRequests: (tenant: string, sub: string) => `pending:{${tenant}:${sub}}`,
  /**
   * Sorted set (`Store.sortedWindowAdd`): the pending requests one client has for one user, by
   * deadline (epoch ms), members shortened as in the velocity windows (`velocityMemberOf`): the
   * policy's `max_pending_per_client_user`, so one client cannot take all of a user's pending places.
   * In the user's tag, beside `pendingRequests`: the two are taken and given back together (each in
   * its own atomic step; see `policy/limits.ts`), and a user's keys stay on one Redis Cluster slot.
   */
  clientPendingRequests: (tenant: string, sub: string, clientId: string) => `pending:{${tenant}:${sub}}:${clientId}`,
  /** Sorted set (`Store.sortedWindowAdd`): the `auth_req_id`s a user was pushed, scored by when (epoch ms); the push rate. */
  pushes: (tenant: string, sub: string) => `pushes:{${tenant}:${sub}}`,
  /**
   * A sliding window (`Store.windowAdd`, `Store.windowRemove`) of requests, each with its time and
   * amounts: the policy's velocity limits per user and per client. In the owner's tag.
   */
  window: (tenant: string, kind: 'velocity-user' | 'velocity-client', owner: string) => `velocity:{${tenant}:${owner}}:${kind === 'velocity-user' ? 'user' : 'client'}`,
  /** Set: the pending `auth_req_id`s that need a reviewer of `role` ("reviewer:finance") in the tenant. */
  roleRequests: (tenant: string, role: string) => `rinbox:{${tenant}}:${role}`,
  /** Set: the `sub`s of the tenant's users who hold `role`. */
  roleMembers: (tenant: string, role: string) => `role:{${tenant}}:${role}`,
  /** Hash: clients a user reported ("this wasn't me"), `client_id` → block record (JSON), until an operator clears it. */
  clientBlocks: (tenant: string, sub: string) => `blocks:{${tenant}:${sub}}`,
} as const;
