import { createAuditLog } from './audit/index.ts';
import { createClientCache } from './clients/index.ts';
import type { Config } from './config/index.ts';
import type { Deps } from './deps.ts';
import { EventBus } from './events/index.ts';
import { pushRequestTo } from './ciba/index.ts';
import { createJobQueue, type JobHandlers, type JobQueueOptions } from './jobs/index.ts';
import { clientNotificationHandler, createClientNotifier, type ClientNotifierOptions } from './notifications/index.ts';
import { createGuardedHttpsAgent } from './outbound/index.ts';
import { countedAudit, createMetrics, pushServiceLabel, type Metrics } from './metrics/index.ts';
import { loadPolicy, unreachableEscalation, type Policy } from './policy/index.ts';
import { createPushNotifier, createWebPushSender, isAllowedPushEndpoint, loadVapidKeys, type PushSender } from './push/index.ts';
import { wireLifecycle } from './consequences.ts';
import { sendSpendReceipt } from './mandates/index.ts';
import { createExpirySweeper, createStoreClock, leaseTicker, sendExpiryNotice, type ExpirySweeperOptions, type OutboxOptions } from './requests/index.ts';
import { Background, consoleLogger, randomId, systemClock, type Clock, type IdGenerator, type Logger } from './runtime/index.ts';
import { keys, observeStoreErrors, type Store } from './store/index.ts';
import { createTenantPolicies } from './tenant-policy/index.ts';
import { KeyRing } from './tokens/index.ts';

/** What {@link createDeps} may be given instead of its defaults (tests inject clocks and senders). */
export interface DepsOverrides {
  clock?: Clock;
  /** Metrics to count into (a registry shared by several instances in one process); new ones by default. */
  metrics?: Metrics;
  ids?: IdGenerator;
  log?: Logger;
  pushSender?: PushSender;
  /** Ping and push delivery: `fetch`, `timeoutMs`, `retryDelaysMs`, and the production transport's `resolve`. */
  notifications?: ClientNotifierOptions;
  /**
   * The job queue's consumer: `consume`, `concurrency`, `minIdleMs`, `pollMs`, `ticker` (the
   * promotion of due retries is wrapped in a lease), `onRetry` (tests record the backoff with it).
   */
  jobs?: Pick<JobQueueOptions, 'consume' | 'concurrency' | 'minIdleMs' | 'pollMs' | 'errorRetryDelaysMs' | 'ticker' | 'onRetry'>;
  /** The approval policy; by default read from `POLICY_FILE` or the shipped default, and validated. */
  policy?: Policy;
  /** The expiry sweeper's interval, batch size and timer (wrapped in the sweep lease). */
  sweeper?: ExpirySweeperOptions;
  /** The outbox's timing: when the reconciler looks at a swap's entry, and the swap's own deadline (tests shorten them). */
  outbox?: Partial<Pick<OutboxOptions, 'reconcileAfterMs' | 'swapDeadlineMs' | 'batchSize'>>;
  /**
   * Live updates to open PWAs; an in-process {@link EventBus} by default. Several instances on one
   * Redis pass a `RedisEventBus` (`connectRedisEventBus`), which `deps.events.close()` closes.
   */
  events?: EventBus;
}

/**
 * Builds the server's dependencies once at start: loads (or, in development, generates and keeps)
 * the signing key and the VAPID keys, and wires the push notifier, the client notifier, the job
 * queue and its handlers, the expiry sweeper and the audit log to the store. The sweeper and the
 * job queue's consumer are built, not started: whoever owns the process (`main.ts`) starts and
 * stops them.
 */
export async function createDeps(config: Config, store: Store, overrides: DepsOverrides = {}): Promise<Deps> {
  const log = overrides.log ?? consoleLogger;
  const clock = overrides.clock ?? systemClock;
  // Read first: a bad policy stops the server before it generates or loads any key.
  const approvalPolicy = overrides.policy ?? (await loadPolicy(config.policyFile));
  // A step no request lives to see (REQUEST_EXPIRY_MAX caps every tier's expiry) would leave a chain that asks nobody.
  const unreachable = unreachableEscalation(approvalPolicy.tiers, config.requestExpiryMax);
  if (unreachable.length > 0) throw new Error(`invalid policy (${String(config.policyFile ?? 'default-policy.json')}):\n  ${unreachable.map((problem) => `${problem.path.join('.')}: ${problem.message}`).join('\n  ')}`);
  const keyRing = await KeyRing.load({ store, signingKey: config.signingKey, production: config.production });
  const vapid = await loadVapidKeys({ store, ...config.vapid, production: config.production });
  // Production pushes go only to allowed push hosts (isAllowedPushEndpoint); the guarded agent also
  // refuses a socket to an internal address, should one of those names ever resolve to one.
  const sender = overrides.pushSender ?? createWebPushSender({ vapid, ...(config.production ? { agent: createGuardedHttpsAgent() } : {}) });
  const policy = { production: config.production, allowedHosts: config.pushAllowedHosts };
  const metrics = overrides.metrics ?? createMetrics({ queueDepth: () => store.streamLength(keys.jobs()) });
  observeStoreErrors(store, (kind) => metrics.storeErrors.inc({ kind }));
  const push = createPushNotifier({
    store,
    sender,
    log: (entry) => {
      metrics.pushSends.inc({ outcome: entry.event.replace('push_', ''), service: pushServiceLabel(entry.push_service) });
      log.info('push', { ...entry });
    },
    allowEndpoint: (endpoint) => isAllowedPushEndpoint(endpoint, policy),
  });
  // This process among the instances sharing the store: the sweep lease's holder, the job queue's consumer.
  const instance = randomId(9, 'inst_');
  // The notifier, the job handlers and the sweeper work on the very Deps they are part of; they read it when they run.
  const handlers: JobHandlers = {
    client_notification: clientNotificationHandler(() => deps, overrides.notifications ?? {}, { production: config.production }),
    request_push: (job) => pushRequestTo(deps, job),
    expiry_push: (job) => sendExpiryNotice(deps, job),
    mandate_receipt: (job) => sendSpendReceipt(deps, job),
  };
  const background = new Background(log);
  // A swap may take the Redis command timeout to reach Redis; the reconciler looks a few seconds
  // after that, so clocks a little apart (instances, Redis) never let it look too early.
  const swapDeadlineMs = overrides.outbox?.swapDeadlineMs ?? config.redisCommandTimeoutMs;
  // The swap's deadline is stated in the store's clock, which Redis checks it against.
  const storeClock = await createStoreClock(store, log);
  const { outbox, lifecycle } = wireLifecycle(() => deps, config, {
    wallClock: storeClock.now,
    swapDeadlineMs,
    reconcileAfterMs: overrides.outbox?.reconcileAfterMs ?? swapDeadlineMs + 3000,
    ...(overrides.outbox?.batchSize ? { batchSize: overrides.outbox.batchSize } : {}),
  });
  const deps: Deps = {
    config,
    policy: approvalPolicy,
    policies: createTenantPolicies({ store, defaultPolicy: approvalPolicy }),
    store,
    clients: createClientCache({ store, clock }),
    clock,
    ids: overrides.ids ?? randomId,
    keyRing,
    vapidPublicKey: vapid.publicKey,
    push,
    audit: countedAudit(createAuditLog(store, clock, config.retentionSeconds, { maxAgeSeconds: config.auditRetentionSeconds, log }), metrics),
    metrics,
    events: overrides.events ?? new EventBus(),
    background,
    log,
    notifier: createClientNotifier(() => deps),
    outbox,
    lifecycle,
    jobs: createJobQueue({
      store,
      clock,
      log,
      background,
      handlers,
      consumer: instance,
      minIdleMs: config.jobTakeoverMs,
      ...overrides.jobs,
      onRetry: (job, delayMs) => {
        metrics.jobRetries.inc({ kind: job.kind });
        overrides.jobs?.onRetry?.(job, delayMs);
      },
      // Retries fall due on every instance's clock; one instance at a time moves them into the queue.
      promotionTicker: leaseTicker({ store, holder: instance, log, name: 'job-retries', ...(overrides.jobs?.ticker ? { ticker: overrides.jobs.ticker } : {}) }),
    }),
    // Several instances share the deadline index: a lease in the store lets one of them sweep at a time.
    sweeper: createExpirySweeper(() => deps, {
      ...overrides.sweeper,
      ticker: leaseTicker({ store, holder: instance, log, ...(overrides.sweeper?.ticker ? { ticker: overrides.sweeper.ticker } : {}) }),
    }),
  };
  return deps;
}
