/**
 * The logical keys of Countersign (docs/storage-layout.md says what each holds, and which keys
 * earlier versions left). Tenancy is part of every key (docs/design.md guarantee 5), and
 * the `{…}` hash tag groups what one atomic operation or one request touches into one Redis
 * Cluster slot. Tenants, subjects and ids are restricted to characters without braces, so a
 * caller cannot move a key into another tag.
 */
export const keys = {
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
  /** String: a client record (JSON), found by `client_id` alone at authentication. */
  client: (clientId: string) => `client:{${clientId}}`,
  /**
   * Sorted set, every score 0: the `client_id`s of a tenant's clients, written when a client is
   * registered and removed when it is deleted; the operator's client list pages through it in
   * byte order (`Store.sortedRangeAfter`). Clients registered before it existed are not in it (a
   * new project needs no backfill; see docs/operator-tools.md). In the tenant's tag.
   */
  tenantClients: (tenant: string) => `clients:{${tenant}}`,
  /** Sorted set, every score 0: the `sub`s of a tenant's users, written when a user is created; as `tenantClients`. */
  tenantUsers: (tenant: string) => `users:{${tenant}}`,
  /** String: a user record (JSON). */
  user: (tenant: string, sub: string) => `user:{${tenant}:${sub}}`,
  /** Set: a user's device ids. */
  userDevices: (tenant: string, sub: string) => `devices:{${tenant}:${sub}}`,
  /** String: one device (JSON: credential, counter, name). */
  device: (tenant: string, sub: string, deviceId: string) => `device:{${tenant}:${sub}}:${deviceId}`,
  /**
   * String: a credential id registered in the tenant → `{sub, device_id}` of the one device holding
   * it, claimed with SET NX before the device is written (WebAuthn Level 3 §7.1 step 26), released
   * when the device is removed. A tag per credential: nothing is written together with it.
   */
  credential: (tenant: string, credentialId: string) => `cred:{${tenant}:${credentialId}}`,
  /** Hash: one device's push subscriptions, endpoint → `PushSubscription` JSON. */
  devicePush: (tenant: string, sub: string, deviceId: string) => `push:{${tenant}:${sub}}:${deviceId}`,
  /** String (single use): an enrollment code → its record. */
  enrollment: (code: string) => `enroll:{${code}}`,
  /** String: a device session → `{tenant, sub, device_id}`. */
  session: (sessionId: string) => `session:{${sessionId}}`,
  /**
   * List: the audit events of one request, as full JSON, in the request's own tag. No longer written
   * nor read: each event is stored once, in the tenant's chain, and found through `requestAuditIndex`.
   * Lists written before that simply expire with their TTL (no migration).
   */
  requestAudit: (tenant: string, authReqId: string) => `audit:{${tenant}:${authReqId}}`,
  /**
   * String: the stream ids, in `auditChain(tenant)`, of one request's audit events, in chain order,
   * separated by spaces (a list before; converted on its next append, see `Store.streamIndexRead`);
   * kept the audit retention. In the TENANT's tag, not the request's: the one script that appends a
   * batch of events to the chain appends each new id here in the same atomic step, so both keys must
   * share a Redis Cluster slot.
   */
  requestAuditIndex: (tenant: string, authReqId: string) => `auditidx:{${tenant}}:${authReqId}`,
  /**
   * String: the stream ids, in `auditChain(tenant)`, of the tenant's `policy_changed` events, in chain
   * order, as `requestAuditIndex` holds a request's (appended by the same script call as the event).
   * In the tenant's tag; kept the audit retention. Read by `GET /api/admin/audit?type=policy_changed`.
   */
  policyAuditIndex: (tenant: string) => `auditpol:{${tenant}}`,
  /**
   * Hash: the tenant's own approval policy (`tenant-policy/policy-record.ts`): `revision` (the
   * current one), `r:<n>` each revision's validated policy as JSON (empty: revision n went back to
   * the server's default), `updated_at`, `updated_by`. Written by compare-and-swap on `revision`;
   * no TTL (an operator's setting, kept until replaced). In the tenant's tag.
   */
  tenantPolicy: (tenant: string) => `tpolicy:{${tenant}}`,
  /** List: every audit event of a tenant (before the hash chain; no longer written, see `auditChain`). */
  tenantAudit: (tenant: string) => `audit:{${tenant}}`,
  /**
   * Stream: a tenant's hash-chained audit trail, append-only (see `audit/audit-log.ts`). A key of its
   * own rather than `audit:{tenant}`, which holds a list in stores written before the chain.
   */
  auditChain: (tenant: string) => `auditlog:{${tenant}}`,
  /**
   * Hash `{seq, hash, id, at}`: the last event the audit retention trimmed from `auditChain(tenant)`
   * (its `seq`, its hash, its stream id and time), written with the trim in one script, so `verify`
   * starts from it instead of the genesis hash. No TTL: it lives as long as the chain. In the tenant's tag.
   */
  auditAnchor: (tenant: string) => `auditanchor:{${tenant}}`,
  /**
   * Set: the tenants that have an audit chain (or a client or user, so soon one), which the audit
   * retention walks. One key for the deployment, in a slot of its own; no TTL.
   */
  auditTenants: () => 'audittenants:{audit}',
  /**
   * Sorted set: every pending request, scored by its `expires_at` (epoch ms), member
   * `<tenant>:<auth_req_id>`; read by the expiry sweeper. One key for the deployment, so it sits
   * in one slot of its own (see `requests/request-deadlines.ts` for how it may be sharded).
   */
  deadlines: () => 'deadlines:{pending}',
  /**
   * Sorted set: every redemption still waiting for its outcome, scored by when it is overdue
   * (`redeemed_at` + `OUTCOME_TIMEOUT`, epoch ms), member `<tenant>:<auth_req_id>`; read by the
   * sweeper, which flags `outcome_unknown`. A slot of its own, as `deadlines`.
   */
  outcomeDeadlines: () => 'deadlines:{outcome}',
  /**
   * Sorted set: every spend of a mandate still waiting for its outcome, scored by when it is
   * overdue (the spend's time + `OUTCOME_TIMEOUT`, epoch ms), member `<tenant>:<redemption_id>`
   * (the spend's id names its mandate); read by the sweeper, which flags `outcome_unknown`. A slot
   * of its own, as `deadlines`.
   */
  spendOutcomeDeadlines: () => 'deadlines:{spend-outcome}',
  /**
   * Sorted set: every pending request whose escalation chain has a step still to come, scored by
   * when that step is due (epoch ms), member `<tenant>:<auth_req_id>`; read by the sweeper, which
   * hands the request to the step's role (docs/escalation.md). A slot of its own, as `deadlines`.
   */
  escalations: () => 'deadlines:{escalation}',
  /**
   * Sorted set: one mark per compare-and-swap of a request that writes an outbox entry, member
   * `<tenant>:<auth_req_id>:<nonce>`, scored when the reconciler is to deliver the entry should the
   * swap's own instance not have (epoch ms); removed once delivered (`requests/outbox.ts`). One key
   * for the deployment, in a slot of its own, as `deadlines`.
   */
  outboxDue: () => 'outbox:{due}',
  /**
   * String (single use, SET NX with a TTL until the JWT's `exp`): a `jti` a client has used, in
   * its client's hash tag. `use` keeps a client assertion's ids apart from a request object's;
   * `jtiHash` is base64url(SHA-256(jti)), so a client's id cannot carry braces into the key.
   */
  usedJti: (clientId: string, use: 'assertion' | 'request', jtiHash: string) => `jti:{${clientId}}:${use}:${jtiHash}`,
  /**
   * Hash `{holder}` with a TTL of a few ticks: who runs a background job this tick (the expiry
   * sweep, see `requests/sweep-lease.ts`), so several instances do not all run it. A slot of its own.
   */
  lease: (name: string) => `lease:{${name}}`,
  /**
   * Stream: the background job queue (see `jobs/`), read through one consumer group by every
   * instance. Each entry holds ids only (`kind`, `tenant`, `auth_req_id`, `attempt`, …), never a
   * token. One key for the deployment, in a slot of its own.
   */
  jobs: () => 'jobs:{queue}',
  /**
   * Sorted set: jobs waiting for a due time (a retry's backoff), scored by it (epoch ms), member the
   * job as JSON; moved into `jobs` once due. A slot of its own.
   */
  jobsDelayed: () => 'jobs:{delayed}',
  /**
   * String (`Store.rateLimit`): one rate limit's counter for one subject (a client
   * `<tenant>:<client_id>`, a source address, a device `<tenant>:<sub>:<device_id>`), with a TTL
   * of at most the limit's window. Each in a slot of its own.
   */
  rate: (limit: string, subject: string) => `rate:{${limit}:${subject}}`,
  /**
   * Sorted set (`Store.sortedWindowAdd`): the event streams one device session holds open, each a
   * random id scored by when its lease ends (epoch ms), renewed while the stream lives.
   */
  streamSlots: (subject: string) => `streams:{${subject}}`,
  /** String: server-generated configuration kept in the store (signing key, VAPID keys). */
  config: (name: string) => `config:{${name}}`,
} as const;
