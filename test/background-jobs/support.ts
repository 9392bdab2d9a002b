import { createAgentClient, type AgentClient } from '@countersign/agent';
import { afterEach, beforeEach, expect } from 'vitest';
import { JOBS_GROUP } from '../../server/src/jobs/index.ts';
import type { NotificationFetch } from '../../server/src/notifications/index.ts';
import { keys } from '../../server/src/store/index.ts';
import { createHarness, type EnrolledUser, type Harness, type HarnessOptions } from '../support/harness.ts';
import { startNotificationReceiver, type NotificationReceiver } from '../support/notification-receiver.ts';
import { payment } from '../support/payment.ts';

/**
 * Background work done once across instances, at least once in total, and safe to repeat
 * (docs/reliability.md "Job consumers"): client notifications (CIBA ping and push) and pushes to
 * the person's devices are jobs of a Redis Streams consumer group that every instance reads. Two
 * server instances share one Redis, or the 3-master cluster; an instance "dies" by dropping its
 * connections in the middle of a job.
 *
 * Retries are due on the injected clock, so the backoff costs no time; only the take-over of a dead
 * instance's job waits for real, because Redis measures how long a job has been held by its own
 * clock: `MIN_IDLE_MS` is small for that.
 *
 * What test/background-jobs/ shares: two instances of one deployment per test, a receiver of
 * client notifications that learns which instance sent each one, and a way to kill an instance.
 */

/** The client notification token every request of these tests carries. */
export const NOTIFICATION_TOKEN = 'cnt_background_jobs_0123456789abcdef';
/** How long a job is held before another instance may take it over, in ms. */
export const MIN_IDLE_MS = 150;

/** A promise and the function that resolves it. */
export function signal() {
  let resolve: () => void = () => {};
  const promise = new Promise<void>((done) => (resolve = done));
  return { promise, resolve };
}

/** Never settles: the instance stops here, as a killed process would. */
export const forever = () => new Promise<never>(() => {});

// What a test reads of the running suite, as live bindings that each test's `beforeEach` sets.
/** This test's receiver of client notifications. */
export let receiver: NotificationReceiver;
/** Which instance sent each notification the receiver got, in order. */
export let senders: string[];

/**
 * The per-test set-up of a `background jobs across two instances on one %s` suite: a fresh
 * receiver before each test, every instance started by `deployment` closed after it.
 */
export function jobsSuite(storeKind: 'redis' | 'cluster') {
  let open: Harness[];

  /** A notification `fetch` that names the instance it belongs to, then sends for real. */
  const sendingAs =
    (name: string): NotificationFetch =>
    (url, init) => {
      senders.push(name);
      return globalThis.fetch(url, init);
    };

  /** Instance A, then B of the same deployment. */
  async function deployment(a: HarnessOptions = {}, b: HarnessOptions = {}): Promise<[Harness, Harness]> {
    const first = await createHarness({ store: storeKind, jobs: { minIdleMs: MIN_IDLE_MS }, notifications: { fetch: sendingAs('A') }, ...a });
    const second = await first.instance({ notifications: { fetch: sendingAs('B') }, ...b });
    open.push(first, second);
    return [first, second];
  }

  /** Kills `instance` (see `Harness.crash`): its jobs in flight are never finished nor acknowledged. */
  async function crash(instance: Harness): Promise<void> {
    open = open.filter((other) => other !== instance);
    await instance.crash();
  }

  /** A client of `mode` registered on `on`, notified at `endpoint` (the receiver unless told). */
  async function agentFor(on: Harness, mode: 'ping' | 'push', endpoint = receiver.url): Promise<AgentClient> {
    const { status, body } = await on.admin('POST', '/clients', { name: `${mode} agent`, token_delivery_mode: mode, backchannel_client_notification_endpoint: endpoint });
    expect(status).toBe(201);
    return createAgentClient({ issuer: on.issuer, clientId: body.client_id, clientSecret: body.client_secret, fetch: on.fetch });
  }

  /** `agent` asks `customer` to approve a payment, with the notification token. */
  async function ask(agent: AgentClient, customer: EnrolledUser, transactionId = 'txn_1042') {
    return agent.requestApproval({ login_hint: customer.sub, authorization_details: payment({ transaction_id: transactionId }), client_notification_token: NOTIFICATION_TOKEN });
  }

  /** The audit events of one request, as the admin API lists them. */
  async function auditOf(on: Harness, authReqId: string): Promise<{ type: string; reason?: string; detail?: Record<string, unknown> }[]> {
    return (await on.admin('GET', `/audit?auth_req_id=${authReqId}`)).body.events;
  }

  /** How many jobs the consumer group holds taken but unacknowledged. */
  const pending = (on: Harness) => on.store.streamPendingCount(keys.jobs(), JOBS_GROUP);

  beforeEach(async () => {
    receiver = await startNotificationReceiver();
    open = [];
    senders = [];
  });
  afterEach(async () => {
    await Promise.all(open.map((instance) => instance.close()));
    await receiver.close();
  });
  return { deployment, crash, agentFor, ask, auditOf, pending };
}
