import type { AuditLog } from './audit/index.ts';
import type { ClientCache } from './clients/index.ts';
import type { Config } from './config/index.ts';
import type { JobQueue } from './jobs/index.ts';
import type { Policy } from './policy/index.ts';
import type { EventBus } from './events/index.ts';
import type { ApprovalRequest, ExpirySweeper, Lifecycle, Outbox } from './requests/index.ts';
import type { Background, Clock, IdGenerator, Logger } from './runtime/index.ts';
import type { Store } from './store/index.ts';
import type { TenantPolicies } from './tenant-policy/index.ts';
import type { KeyRing } from './tokens/index.ts';
import type { Metrics } from './metrics/index.ts';

/** Sends Web Push notifications to all of a user's devices. */
export interface UserNotifier {
  notifyUser(input: { tenant: string; sub: string; auth_req_id: string; summary: string; ttlSeconds: number; kind?: 'approval_request' | 'request_expired' | 'mandate_spend' | 'device_removed' }): Promise<{ sent: number; removed: number; failed: number }>;
}

/**
 * Tells ping and push clients how their requests ended (CIBA Core §10.2 ping, §10.3 push, §12
 * push errors). Implemented in `notifications/`; the request lifecycle only calls it.
 */
export interface ClientNotifier {
  /**
   * Schedules the notification of a request that has just been settled: approved, denied, or
   * expired while pending. Resolves once the job is enqueued (the delivery and its retries are jobs
   * of `Deps.jobs`, run by any instance); does nothing for a poll client.
   * @throws when the store fails; the job was not enqueued (the outbox delivers it again).
   */
  requestSettled(request: ApprovalRequest): Promise<void>;
}

/** Everything the server's handlers use, passed in once: no module-level state, no globals. */
export interface Deps {
  config: Config;
  /**
   * The server's approval policy (tiers, reviewers, velocity and push limits), loaded and validated
   * at start: every tenant's until it sets its own. Rate a request with `policies`, not this.
   */
  policy: Policy;
  /**
   * Each tenant's policy by revision (the tenant's own, set through the admin API, else `policy`),
   * cached per instance. A new request is rated under its tenant's current revision and keeps it
   * (`policy_revision`); what reads the policy later reads that revision (`policies.forRequest`).
   */
  policies: TenantPolicies;
  store: Store;
  /**
   * Client records by `client_id` through a short in-process cache (at most 5 s stale, misses never
   * kept): what client authentication reads on every agent call.
   */
  clients: ClientCache;
  clock: Clock;
  ids: IdGenerator;
  keyRing: KeyRing;
  /** The VAPID public key the PWA subscribes with (RFC 8292 §3.2), base64url. */
  vapidPublicKey: string;
  push: UserNotifier;
  /** Ping and push notifications to clients. */
  notifier: ClientNotifier;
  /**
   * The only writer of a request's state (`requests/lifecycle.ts`): typed transitions, each one
   * compare-and-swap that writes its outbox entry with it.
   */
  lifecycle: Lifecycle;
  /** Delivers what follows each transition (`consequences.ts`), and reconciles what a failed instance left. */
  outbox: Outbox;
  /** Finds requests past their deadline and settles them; `main.ts` starts it, tests call `sweep()`. */
  sweeper: ExpirySweeper;
  audit: AuditLog;
  /** Prometheus metrics of this instance (`GET /metrics`, docs/operations.md "Metrics"). */
  metrics: Metrics;
  events: EventBus;
  background: Background;
  /**
   * The durable queue of background work shared by all instances (pushes to people's devices, ping
   * and push notifications to clients, their retries); `main.ts` starts its consumer.
   */
  jobs: JobQueue;
  log: Logger;
}
