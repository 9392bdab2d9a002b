import type { Deps } from '../deps.ts';
import { intervalTicker, type Ticker } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { outboxOf } from './lifecycle.ts';
import { settleExpiry } from './load-request.ts';
import { requestOf } from './request-fields.ts';
import { flagUnknownOutcome, flagUnknownSpendOutcome, parseSpendDeadlineMember } from './outcome-deadlines.ts';
import { nextEscalation, parseDeadlineMember, trackApprovalDeadline, trackEscalation, type RequestRef } from './request-deadlines.ts';

/** Options of {@link createExpirySweeper}. */
export interface ExpirySweeperOptions {
  /** Milliseconds between sweeps; 1000 by default, so an expiry is announced within about a second. */
  intervalMs?: number;
  /** Deadlines read per store call; a sweep reads batches until one comes back short. 100 by default. */
  batchSize?: number;
  /** The timer; {@link intervalTicker} by default, a manual one in tests. */
  ticker?: Ticker;
  /**
   * Milliseconds of the clock between two runs of the audit retention (`AuditLog.trim`) inside
   * sweeps; 60 000 by default. The first sweep runs it.
   */
  retentionEveryMs?: number;
}

/**
 * Finds requests whose decision deadline has passed and settles them, so that they expire loudly;
 * and redemptions (and mandates' spends) whose outcome is overdue, and flags them `outcome_unknown`; and, every
 * `retentionEveryMs`, trims audit events past the audit retention.
 */
export interface ExpirySweeper {
  /**
   * One sweep: every request in the deadline index whose deadline (a pending request's
   * `expires_at`, an approved one's `approval_expires_at`) is at or before the clock's now is settled
   * with `settleExpiry` (which audits, tells the PWA, the person's devices and the ping/push client,
   * and gives back the request's places in the user's limits), then dropped from the index; then
   * every redemption in the outcome index that is overdue is flagged with `flagUnknownOutcome` and
   * dropped; then every request in the escalation index whose window has passed is handed to the
   * next role of its chain (`Lifecycle.escalate`); then, when `retentionEveryMs` has passed since it last ran, the audit retention
   * (`AuditLog.trim`), whose failure is logged and does not fail the sweep. A sweep called while
   * one runs joins it.
   *
   * @returns how many due deadlines the sweep handled.
   * @throws when the store fails; the entries not yet handled stay in the index for the next sweep.
   */
  sweep(): Promise<number>;
  /** Sweeps every `intervalMs` from now on; a second call does nothing. A failed sweep is logged. */
  start(): void;
  /** Stops the timer; a sweep in flight finishes. */
  stop(): void;
}

/** At most this many batches per sweep, so one tick stays short even after a long outage. */
const MAX_BATCHES_PER_SWEEP = 50;

/**
 * Creates the expiry sweeper (docs/audit.md "Expire loudly"). Its cost follows the number of
 * requests that expire, not the number alive: the deadline index is a sorted set read with
 * `sortedRangeByScore(…, now, batchSize)`, which touches only the due entries.
 *
 * Each entry is settled first and removed afterwards, so a crash in between leaves it for the next
 * sweep (at least once); settling twice is harmless because `settleExpiry` is a compare-and-swap
 * and only its winner audits and notifies. That is also why several instances sweeping the same
 * index today give the right result, only with repeated reads. Doing the work once across
 * instances hooks in at {@link ExpirySweeper.sweep}: wrap it in a short Redis lease
 * (`SET sweep:{pending} <instance> NX PX <interval>`) or feed the due entries to a Streams
 * consumer group instead of settling them here; and, should one index key become hot, shard it
 * (`deadlines:{pending:N}`) and sweep the shards in turn.
 *
 * @param deps - read when a sweep runs, so the sweeper can be built together with the `Deps` it is part of.
 * @see CIBA Core 1.0 §7.3 (`expires_in`), §10.2 and §12 (telling the client about an expiry)
 */
export function createExpirySweeper(deps: () => Pick<Deps, 'store' | 'clock' | 'audit' | 'config' | 'lifecycle' | 'outbox' | 'log'>, options: ExpirySweeperOptions = {}): ExpirySweeper {
  const intervalMs = options.intervalMs ?? 1000;
  const batchSize = options.batchSize ?? 100;
  const ticker = options.ticker ?? intervalTicker;
  const retentionEveryMs = options.retentionEveryMs ?? 60_000;
  /** When (the clock's ms) the audit retention runs next. */
  let nextTrimAt = Number.NEGATIVE_INFINITY;
  let running: Promise<number> | null = null;
  let cancel: (() => void) | null = null;

  /**
   * Handles the due entries of one index, batch by batch: each batch is handled concurrently first,
   * and the entries handled are removed afterwards (one round trip for the batch, pipelined), but
   * for those whose handler answered `'keep'` (it moved the entry to a later deadline). `parse`
   * reads a member (`<tenant>:<auth_req_id>` by default); one it cannot read is dropped.
   */
  async function sweepIndex<Ref extends RequestRef>(key: string, handle: (ref: Ref) => Promise<unknown>, parse: (member: string) => Ref | null = parseDeadlineMember as (member: string) => Ref | null): Promise<number> {
    const current = deps();
    let handled = 0;
    for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
      const due = await current.store.sortedRangeByScore(key, current.clock.now(), batchSize);
      // The batch is settled concurrently (each one a compare-and-swap of its own request), then
      // removed from the index together; an entry whose handling failed stays for the next sweep.
      const results = await Promise.allSettled(due.map(async (member) => {
        const ref = parse(member);
        return ref ? handle(ref) : undefined;
      }));
      const done = due.filter((_, i) => results[i]!.status === 'fulfilled');
      const kept = due.filter((_, i) => {
        const result = results[i]!;
        return result.status === 'fulfilled' && result.value === 'keep';
      });
      await Promise.all(done.filter((member) => !kept.includes(member)).map((member) => current.store.sortedRemove(key, member)));
      handled += done.length;
      const failure = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
      if (failure) throw failure.reason;
      if (due.length < batchSize) break;
    }
    return handled;
  }

  async function sweepOnce(): Promise<number> {
    const current = deps();
    // First what failed instances left: transitions whose consequences were not delivered. Its
    // failure must not stop the expiries and flags below: it fails the sweep once they ran.
    const unreconciled = await current.outbox.reconcile().then(
      () => null,
      (error: unknown) => ({ error }),
    );
    const expired = await sweepIndex(keys.deadlines(), async (ref) => {
      let fields = await current.store.hashGet(keys.request(ref.tenant, ref.auth_req_id));
      // The second backstop: a request stays in this index until its last outbox entry is
      // delivered, so what even the reconciler missed is delivered here, at the latest. Entries
      // younger than the reconciler's delay may still be on their way: left to their instance.
      if (fields && outboxOf(fields).length > 0 && (await current.outbox.drain(ref, fields, { staleOnly: true })) > 0) fields = await current.store.hashGet(keys.request(ref.tenant, ref.auth_req_id));
      const request = requestOf(fields);
      // A request that is gone (its TTL ran out) or already decided has nothing left to announce.
      const settled = request ? await settleExpiry(current, request) : null;
      // Approved just before its decision deadline, while this sweep read the index: its entry
      // waits for the approval's deadline instead (as the approval itself moved it), not dropped.
      if (settled?.state === 'approved') {
        await trackApprovalDeadline(current.store, settled, current.config);
        return 'keep';
      }
      return undefined;
    });
    // Escalation windows that passed (docs/escalation.md): each request handed to its chain's next
    // role, one compare-and-swap pinned to the step read, so two sweeps hand it on once. Its entry
    // was moved to the next step's time by the transition's consequences: kept, not dropped.
    const escalated = await sweepIndex(keys.escalations(), async (ref) => {
      const request = requestOf(await current.store.hashGet(keys.request(ref.tenant, ref.auth_req_id)));
      if (!request || request.state !== 'pending') return undefined;
      const now = current.clock.now();
      const result = await current.lifecycle.escalate(request, now);
      // As it stands after the attempt (another sweep may have handed it on meanwhile): kept at its
      // next step's time while one is still to come before its deadline, else dropped. A next step
      // already due (the sweeps fell behind its window) is kept too, so the next sweep hands it on.
      const after = result.ok ? result.request : (requestOf(result.fields) ?? request);
      const next = after.state === 'pending' ? nextEscalation(after) : null;
      if (!next || now >= after.expires_at) return undefined;
      if (!result.ok) await trackEscalation(current.store, after, current.config.requestExpiryMax + current.config.graceSeconds);
      return 'keep';
    });
    // Flagging is a compare-and-swap on the request, so an entry handled twice is flagged once.
    const overdue = await sweepIndex(keys.outcomeDeadlines(), (ref) => flagUnknownOutcome(current, ref));
    // The same for each spend of a mandate, a redemption of its own.
    const overdueSpends = await sweepIndex(keys.spendOutcomeDeadlines(), (ref) => flagUnknownSpendOutcome(current, ref), parseSpendDeadlineMember);
    await trimAudit(current);
    if (unreconciled) throw unreconciled.error;
    return expired + escalated + overdue + overdueSpends;
  }

  /**
   * The audit retention, under the sweep's lease, at most every `retentionEveryMs`. A chain whose old
   * end does not verify is left as it is and logged: the trim keeps the evidence for `audit verify`.
   */
  async function trimAudit(current: ReturnType<typeof deps>): Promise<void> {
    const now = current.clock.now();
    if (now < nextTrimAt) return;
    nextTrimAt = now + retentionEveryMs;
    try {
      for (const report of await current.audit.trim()) {
        if (report.stopped) current.log.error('audit retention stopped at a link that does not verify', { tenant: report.tenant, trimmed: report.trimmed, reason: report.stopped });
        else if (report.trimmed > 0) current.log.info('audit retention trimmed', { tenant: report.tenant, trimmed: report.trimmed, anchor_seq: report.anchor?.seq ?? null });
      }
    } catch (error) {
      current.log.error('audit retention failed', { error: String(error) });
    }
  }

  function sweep(): Promise<number> {
    running ??= sweepOnce().finally(() => {
      running = null;
    });
    return running;
  }

  return {
    sweep,
    start() {
      cancel ??= ticker(() => {
        sweep().catch((error: unknown) => deps().log.error('expiry sweep failed', { error: String(error) }));
      }, intervalMs);
    },
    stop() {
      cancel?.();
      cancel = null;
    },
  };
}
