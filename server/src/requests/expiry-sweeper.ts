import { intervalTicker, type Ticker } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { flagUnknownOutcome, flagUnknownSpendOutcome, parseSpendDeadlineMember } from './outcome-deadlines.ts';
import type { RequestRef } from './request-deadlines.ts';
import { createAuditTrim } from './sweep-audit-trim.ts';
import { sweepIndex as sweepDue } from './sweep-index.ts';
import { escalateDue, expireDue, type SweepDeps } from './sweep-passes.ts';

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
export function createExpirySweeper(deps: () => SweepDeps, options: ExpirySweeperOptions = {}): ExpirySweeper {
  const intervalMs = options.intervalMs ?? 1000;
  const batchSize = options.batchSize ?? 100;
  const ticker = options.ticker ?? intervalTicker;
  const trimAudit = createAuditTrim(options.retentionEveryMs ?? 60_000);
  let running: Promise<number> | null = null;
  let cancel: (() => void) | null = null;

  /** One pass over the due entries of one index (`sweep-index.ts`). */
  const sweepIndex = <Ref extends RequestRef>(key: string, handle: (ref: Ref) => Promise<unknown>, parse?: (member: string) => Ref | null): Promise<number> => sweepDue(deps(), key, batchSize, handle, parse);

  async function sweepOnce(): Promise<number> {
    const current = deps();
    // First what failed instances left: transitions whose consequences were not delivered. Its
    // failure must not stop the expiries and flags below: it fails the sweep once they ran.
    const unreconciled = await current.outbox.reconcile().then(
      () => null,
      (error: unknown) => ({ error }),
    );
    const expired = await sweepIndex(keys.deadlines(), (ref) => expireDue(current, ref));
    // Escalation windows that passed (docs/escalation.md), each handed to its chain's next role.
    const escalated = await sweepIndex(keys.escalations(), (ref) => escalateDue(current, ref));
    // Flagging is a compare-and-swap on the request, so an entry handled twice is flagged once.
    const overdue = await sweepIndex(keys.outcomeDeadlines(), (ref) => flagUnknownOutcome(current, ref));
    // The same for each spend of a mandate, a redemption of its own.
    const overdueSpends = await sweepIndex(keys.spendOutcomeDeadlines(), (ref) => flagUnknownSpendOutcome(current, ref), parseSpendDeadlineMember);
    await trimAudit(current);
    if (unreconciled) throw unreconciled.error;
    return expired + escalated + overdue + overdueSpends;
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
