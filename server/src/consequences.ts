import { pushRequest } from './ciba/index.ts';
import type { Deps } from './deps.ts';
import { audienceOf, rolesOf } from './devices/index.ts';
import { recordHistory } from './history/index.ts';
import { releasePending, releaseUnused } from './policy/index.ts';
import {
  announceExpiry,
  trackApprovalDeadline,
  trackOutcomeDeadline,
  trackSpendOutcomeDeadline,
  untrackDeadline,
  untrackEscalation,
  untrackOutcomeDeadline,
  untrackSpendOutcomeDeadline,
  createLifecycle,
  createOutbox,
  type Consequence,
  type Consequences,
  type Lifecycle,
  type LifecycleTimes,
  type Outbox,
  type OutboxDeps,
  type OutboxOptions,
  type TransitionEvent,
} from './requests/index.ts';
import { randomId } from './runtime/index.ts';
import { keys } from './store/index.ts';
import { blockClient } from './users/index.ts';
import { auditEventsOf } from './consequences-audit.ts';
import { escalationConsequences } from './escalation-consequences.ts';
import { indexMandate, pushSpendReceipt } from './mandates/index.ts';

/** What the consequences need of the server's dependencies. */
export type ConsequenceDeps = Pick<Deps, 'audit' | 'store' | 'events' | 'config' | 'notifier' | 'jobs' | 'clock' | 'log'>;

/** Options of {@link wireLifecycle}: the outbox's timing (tests shorten it). */
export type LifecycleWiring = Pick<OutboxOptions, 'swapDeadlineMs' | 'reconcileAfterMs'> & Partial<Pick<OutboxOptions, 'batchSize' | 'nonce' | 'wallClock'>>;

/**
 * The request lifecycle as the app is composed: its outbox, delivering {@link consequencesOf}, and
 * the typed operations writing through it.
 *
 * @param deps - read when a transition runs, so this can be built together with the `Deps` it is part of.
 * @param times - the lifetimes the operations write (the `Config`'s).
 */
export function wireLifecycle(deps: () => ConsequenceDeps & OutboxDeps, times: LifecycleTimes, wiring: LifecycleWiring): { outbox: Outbox; lifecycle: Lifecycle } {
  let consequences: Consequences | undefined;
  const outbox = createOutbox(deps, () => (consequences ??= consequencesOf(deps())), { nonce: () => randomId(9), ...wiring });
  return { outbox, lifecycle: createLifecycle(outbox.swap, times) };
}

/**
 * What follows each transition of the request lifecycle (`requests/lifecycle.ts`), on one screen:
 * the outbox (`requests/outbox.ts`) delivers these at least once, from the instance that made the
 * transition or, should it fail, from the reconciler on any instance. `record` lands before the
 * caller answers; `then` follows it, so a client or a person is told only once the audit trail
 * holds the decision. Every consequence is idempotent, and checks the request as it stands where
 * the transition alone would mislead (a late delivery of an approval whose request was redeemed
 * since must not track its deadline again).
 */
export function consequencesOf(deps: ConsequenceDeps): Consequences {
  const audit: Consequence = async (event) => {
    const { tenant, auth_req_id } = event.request;
    const events = auditEventsOf(event);
    // Called in order, so they are chained in order (the fraud report after its denial), and share a batch.
    await Promise.all(events.map(({ once, ...recorded }, n) => deps.audit.record({ ...recorded, tenant, auth_req_id }, { once: once ?? event.once(n), atMs: event.transition.at })));
  };
  const auditAfterBlock: Consequence = async (event) => {
    const t = event.transition;
    if (t.op === 'deny' && t.cause === 'fraud_reported') {
      await blockClient(deps.store, event.request.tenant, event.request.sub, { client_id: event.request.client_id, auth_req_id: event.request.auth_req_id, blocked_at: t.at });
    }
    await audit(event);
  };
  const history: Consequence = ({ transition: t, request }) => recordHistory(deps, request, t.op === 'deny' ? { sub: t.sub, party: t.party, cause: t.cause } : undefined);
  // Who sees the request (its person and the holders of the roles it needs), read once per
  // delivery however many of its consequences ask.
  const audiences = new WeakMap<TransitionEvent, Promise<string[]>>();
  const audienceOfEvent = (event: TransitionEvent): Promise<string[]> => {
    const known = audiences.get(event);
    if (known) return known;
    const audience = audienceOf(deps, event.request);
    audiences.set(event, audience);
    return audience;
  };
  const announceToAudience: Consequence = async (event) => {
    const { tenant, auth_req_id, state } = event.request;
    for (const sub of await audienceOfEvent(event)) deps.events.publish(tenant, sub, { auth_req_id, state });
  };
  const publishToPerson: Consequence = async ({ request }) => deps.events.publish(request.tenant, request.sub, { auth_req_id: request.auth_req_id, state: request.state });
  const leaveQueues: Consequence = ({ request }) => Promise.all(rolesOf(request).map((role) => deps.store.setRemove(keys.roleRequests(request.tenant, role), request.auth_req_id)));
  const untrack: Consequence = async ({ request }) => {
    await Promise.all([untrackDeadline(deps.store, request), untrackEscalation(deps.store, request)]);
  };
  const indexTtl = deps.config.requestExpiryMax + deps.config.graceSeconds;
  const escalation = escalationConsequences(deps, indexTtl, audienceOfEvent);
  const giveBackUnused: Consequence = ({ request }) => releaseUnused(deps.store, request);
  const tellClient: Consequence = ({ request }) => deps.notifier.requestSettled(request);

  return {
    propose: {
      record: [audit, announceToAudience, (event) => indexMandate(deps, event.request)],
      then: [
        async (event) => {
          const { request } = event;
          const audience = await audienceOfEvent(event);
          await pushRequest(
            deps,
            request,
            audience.filter((sub) => sub !== request.sub || (request.parties ?? ['customer']).includes('customer')),
          );
        },
      ],
    },
    approveParty: { record: [audit, announceToAudience, history] },
    // Handed to the next role of its chain (docs/escalation.md): escalation-consequences.ts.
    escalate: { record: [audit, ...escalation.record], then: escalation.then },
    approve: {
      record: [
        audit,
        history,
        leaveQueues,
        ({ request }) => untrackEscalation(deps.store, request),
        // Approved: waits in the deadline index for its approval's deadline (unless redeemed since), and keeps counting.
        ({ request }) => (request.state === 'approved' ? trackApprovalDeadline(deps.store, request, deps.config) : Promise.resolve()),
        ({ request }) => releasePending(deps.store, request),
        announceToAudience,
      ],
      then: [tellClient],
    },
    deny: { record: [auditAfterBlock, history, leaveQueues, untrack, giveBackUnused, announceToAudience], then: [tellClient] },
    expire: {
      record: [audit, untrack, giveBackUnused, publishToPerson, history],
      // An approval that runs out is not announced to the client again: it was told at the approval.
      then: [({ transition: t, request }) => (t.op === 'expire' && t.from === 'pending' ? deps.notifier.requestSettled(request) : Promise.resolve()), ({ transition: t, request }) => announceExpiry(deps, request, t.op === 'expire' ? t.from : 'pending')],
    },
    issueToken: { record: [audit] },
    redeem: {
      record: [
        audit,
        // Until the outcome arrives, the sweeper flags it `outcome_unknown` once this deadline passes.
        ({ transition: t, request }) => (request.outcome?.status === 'unknown' ? trackOutcomeDeadline(deps.store, request, t.at + deps.config.outcomeTimeoutSeconds * 1000, deps.config.retentionSeconds) : Promise.resolve()),
        // Redeemed: it will not expire, and keeps counting in the velocity windows (money moved).
        untrack,
        publishToPerson,
      ],
      // The history's read and write are two round trips: the executor does not wait for them.
      then: [history],
    },
    reportOutcome: { record: [audit, ({ request }) => untrackOutcomeDeadline(deps.store, request), publishToPerson], then: [history] },
    flagOutcome: { record: [audit] },
    // A mandate (docs/mandates.md): each spend audited and shown to the person at once, waiting in
    // the spends' outcome index as a redemption does, then the receipt pushed when the mandate asks
    // for receipts; a revocation leaves the deadline index.
    spend: {
      record: [audit, ({ transition: t, request }) => (t.op === 'spend' ? trackSpendOutcomeDeadline(deps.store, request.tenant, t.redemption_id, t.at + deps.config.outcomeTimeoutSeconds * 1000, deps.config.retentionSeconds) : Promise.resolve()), publishToPerson],
      then: [(event) => pushSpendReceipt(deps, event)],
    },
    revoke: { record: [audit, untrack, publishToPerson, history] },
    reportSpendOutcome: { record: [audit, ({ transition: t, request }) => (t.op === 'reportSpendOutcome' ? untrackSpendOutcomeDeadline(deps.store, request.tenant, t.redemption_id) : Promise.resolve()), publishToPerson] },
    flagSpendOutcome: { record: [audit] },
  };
}
