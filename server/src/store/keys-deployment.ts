/**
 * The deployment-wide and background keys: the sweeper's deadline sets, the outbox, the job
 * queue, leases, used JWT ids, rate limits, stream slots and server-generated configuration.
 * Part of `keys` (see `keys.ts`, which holds the rules every key follows).
 */
export const deploymentKeys = {
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
