import type { Background, Clock, Logger } from '../runtime/index.ts';
import { keys, type Fields, type Store } from '../store/index.ts';
import { outboxField, outboxOf, PROPOSE_SEQ, type Swap, type Transition, type TransitionOp } from './lifecycle.ts';
import type { RequestRef } from './request-deadlines.ts';
import { fromFields, requestOf } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

/** One transition's consequences are delivered with this: what happened, its place, and the request as it stands now. */
export interface TransitionEvent {
  transition: Transition;
  /** The outbox entry's sequence number in its request (0 for the creation). */
  seq: number;
  /** The request as read with the transition (the live path) or when it is delivered again (the reconciler). */
  request: ApprovalRequest;
  /**
   * The token that makes the `n`-th audit event of this transition land once (`AuditLog.record`'s
   * `once`), however often the entry is delivered: `<seq>.<n>`.
   */
  once(n: number): string;
}

/** One consequence of a transition; it must be safe to run twice (the outbox delivers at least once). */
export type Consequence = (event: TransitionEvent) => Promise<unknown>;

/**
 * What follows each operation, as the app is composed (`consequences.ts`): `record` runs at once,
 * all together, and the swap's caller answers once they landed; `then` runs after them (a client is
 * never told before the audit trail holds the decision), in the background.
 */
export type Consequences = Record<TransitionOp, { record: Consequence[]; then?: Consequence[] }>;

/** What the outbox needs of the server's dependencies. */
export interface OutboxDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  background: Background;
}

/** Options of {@link createOutbox}. */
export interface OutboxOptions {
  /**
   * Milliseconds a swap may take to reach the store (wall clock): past it, Redis refuses it
   * unapplied (`CompareAndSetOptions.notAfterMs`). The Redis command timeout.
   */
  swapDeadlineMs: number;
  /**
   * Milliseconds after a swap when the reconciler delivers what the swap left behind, should its
   * instance not have; longer than `swapDeadlineMs` plus any clock skew between the instances and
   * Redis, so a swap the reconciler looks at has either applied or never will.
   */
  reconcileAfterMs: number;
  /** Entries the reconciler delivers per call; 100 by default. */
  batchSize?: number;
  /**
   * The clock the swap's deadline is stated in: the store's (`createStoreClock`), which Redis
   * compares it with; `Date.now` by default (the request clock may be a test's).
   */
  wallClock?: () => number;
  /** A random member suffix; 9 random base64url characters by default. */
  nonce: () => string;
}

/** The outbox of the request lifecycle: the {@link Swap} the lifecycle writes with, and its reconciler. */
export interface Outbox {
  swap: Swap;
  /**
   * Marks that `ref` is about to be created with its creation's entry (`ob:0`, {@link creationFields}):
   * written beside the record, so the reconciler looks for it. Answers the mark, for {@link Outbox.created}.
   */
  intend(ref: RequestRef): Promise<string>;
  /** Delivers the creation's consequences once its record (with `ob:0`) is stored; answers once `record` landed. */
  created(request: ApprovalRequest, mark: string): Promise<void>;
  /**
   * Delivers every outbox entry `ref`'s record holds, oldest first, all of each entry's
   * consequences, and clears them. The backstop of the expiry sweep, and the reconciler's step.
   * With `staleOnly`, only the entries whose transition is older than `reconcileAfterMs`: those
   * younger may still be on their way from the instance that made them (the sweep's backstop
   * leaves them to it, and to the reconciler, rather than deliver them a second time).
   * @returns how many entries it delivered.
   */
  drain(ref: RequestRef, fields?: Fields | null, options?: { staleOnly?: boolean }): Promise<number>;
  /**
   * The reconciler: delivers the entries of the swaps whose mark is due (their instance died, timed
   * out or failed over before delivering), from any instance; run under the sweep's lease.
   * A mark whose entries could not all be delivered is put back, due `reconcileAfterMs` later.
   * @returns how many marks it handled.
   * @throws when the due marks cannot be read; a mark whose delivery failed stays, for later.
   */
  reconcile(): Promise<number>;
}

/** The creation's outbox entry, to write with the new record (`Store.hashCreate`). */
export function creationFields(createdAt: number): Fields {
  return { [outboxField(PROPOSE_SEQ)]: JSON.stringify({ op: 'propose', at: createdAt } satisfies Transition) };
}

/** The member of `keys.outboxDue` for one swap of `ref`: `<tenant>:<auth_req_id>:<nonce>`, one per swap, so two swaps never share one. */
function markOf(ref: RequestRef, nonce: string): string {
  return `${ref.tenant}:${ref.auth_req_id}:${nonce}`;
}

function parseMark(member: string): RequestRef | null {
  const match = /^([a-z0-9][a-z0-9-]{0,39}):([A-Za-z0-9_-]{16,128}):[A-Za-z0-9_-]{1,32}$/.exec(member);
  return match ? { tenant: match[1]!, auth_req_id: match[2]! } : null;
}

/**
 * The outbox (docs/reliability.md "What follows a transition"). A transition and what must follow
 * it cannot share one atomic step in Redis Cluster: the audit chain, the deadline indexes and the
 * job queue are in other slots than the request. So the swap writes, in its own atomic step, an
 * outbox entry into the request's record (`ob:<seq>`), and the consequences are delivered from it:
 *
 * 1. Before the swap, a mark `<tenant>:<id>:<nonce>` goes into `keys.outboxDue`, scored when the
 *    reconciler is to look (`reconcileAfterMs` on). Written first, so no swap applies unmarked.
 * 2. The swap (`Store.compareAndSet` with `outbox` and `notAfterMs`) applies, or not; one that fails
 *    its guards removes its mark at once; one that fails without an answer (a timeout, a failover)
 *    leaves it.
 * 3. The instance delivers the entry's consequences (`record`, then `then`), then deletes the
 *    entry and the mark.
 * 4. The reconciler, on any instance, takes the marks that are due and delivers whatever entries
 *    their records still hold, then drops the marks. A swap cannot apply after its mark is due:
 *    its deadline is earlier, and Redis refuses it past that.
 *
 * Every consequence is idempotent (an audit event lands once per `once` token, index writes are
 * set operations, jobs check what they did), so an entry delivered by both the instance and the
 * reconciler has the effect of one delivery. The expiry sweep is a second backstop: a request stays
 * in the deadline index until its last entry is delivered, and the sweep drains what it finds.
 */
export function createOutbox(deps: () => OutboxDeps, consequences: () => Consequences, options: OutboxOptions): Outbox {
  const wall = options.wallClock ?? Date.now;
  const batchSize = options.batchSize ?? 100;

  async function mark(ref: RequestRef): Promise<string> {
    const { store, clock } = deps();
    const member = markOf(ref, options.nonce());
    await store.sortedAdd(keys.outboxDue(), member, clock.now() + options.reconcileAfterMs);
    return member;
  }

  /** Runs one entry's consequences: answers when `record` landed (`recorded`) and when all did and the entry is cleared (`done`). */
  function deliver(ref: RequestRef, seq: number, transition: Transition, request: ApprovalRequest, member: string | null): { recorded: Promise<unknown>; done: Promise<void> } {
    const plan = consequences()[transition.op];
    const event: TransitionEvent = { transition, seq, request, once: (n) => `${seq}.${n}` };
    const recorded = Promise.all(plan.record.map((consequence) => consequence(event)));
    const done = recorded
      .then(() => Promise.all((plan.then ?? []).map((consequence) => consequence(event))))
      .then(async () => {
        const { store } = deps();
        await Promise.all([store.hashDelete(keys.request(ref.tenant, ref.auth_req_id), outboxField(seq)), member ? store.sortedRemove(keys.outboxDue(), member) : undefined]);
      });
    return { recorded, done };
  }

  /** The live path: waits for `record`, leaves the rest to the background; a failure is left to the reconciler. */
  async function deliverLive(ref: RequestRef, seq: number, transition: Transition, request: ApprovalRequest, member: string | null): Promise<void> {
    const { background, log } = deps();
    const { recorded, done } = deliver(ref, seq, transition, request, member);
    background.run(`consequences of ${transition.op}`, () => done);
    try {
      await recorded;
    } catch (error) {
      // The transition stands, with its entry; the reconciler delivers it once the store answers again.
      log.warn('the consequences of a transition failed; the reconciler will deliver them', { op: transition.op, auth_req_id: ref.auth_req_id, error: String(error) });
    }
  }

  const swap: Swap = async (ref, guards, set, transition, swapOptions = {}) => {
    const { store } = deps();
    // Read before the mark, as its score is: a mark slow to land shortens the swap's time, never
    // the margin (`reconcileAfterMs - swapDeadlineMs`) between its deadline and the mark's due time.
    const notAfterMs = wall() + options.swapDeadlineMs;
    const member = await mark(ref);
    // A swap that fails without an answer may still have applied: its mark stays for the reconciler.
    const result = await store.compareAndSet(keys.request(ref.tenant, ref.auth_req_id), guards, set, {
      ...swapOptions,
      outbox: JSON.stringify(transition),
      notAfterMs,
    });
    if (!result.ok) {
      await store.sortedRemove(keys.outboxDue(), member);
      return { ok: false, fields: result.fields, ...(result.failedGuard === undefined ? {} : { failedGuard: result.failedGuard }) };
    }
    const fields = result.fields!;
    const request = fromFields(fields);
    const seq = Number(fields.seq);
    // Entries of earlier swaps still here (a lost reply, a delivery in flight) go first, so the
    // audit trail keeps the order of the transitions; a second delivery of one lands once.
    for (const earlier of outboxOf(fields)) if (earlier.seq < seq) await deliverLive(ref, earlier.seq, earlier.transition, request, null);
    await deliverLive(ref, seq, transition, request, member);
    return { ok: true, request, fields };
  };

  async function drain(ref: RequestRef, read?: Fields | null, drainOptions: { staleOnly?: boolean } = {}): Promise<number> {
    const fields = read === undefined ? await deps().store.hashGet(keys.request(ref.tenant, ref.auth_req_id)) : read;
    const request = requestOf(fields);
    if (!request) return 0;
    const staleBefore = deps().clock.now() - options.reconcileAfterMs;
    const entries = outboxOf(fields!).filter((entry) => !drainOptions.staleOnly || entry.transition.at <= staleBefore);
    // In order, each whole: a later transition's consequences never overtake an earlier one's.
    for (const entry of entries) await deliver(ref, entry.seq, entry.transition, request, null).done;
    return entries.length;
  }

  return {
    swap,
    intend: mark,
    async created(request, member) {
      await deliverLive(request, PROPOSE_SEQ, { op: 'propose', at: request.created_at }, request, member);
    },
    drain,
    async reconcile() {
      const { store, clock, log } = deps();
      const now = clock.now();
      const due = await store.sortedRangeByScore(keys.outboxDue(), now, batchSize);
      await Promise.all(
        due.map(async (member) => {
          const ref = parseMark(member);
          try {
            const delivered = ref ? await drain(ref) : 0;
            if (delivered > 0) log.info('outbox entries delivered by the reconciler', { auth_req_id: ref!.auth_req_id, entries: delivered });
            await store.sortedRemove(keys.outboxDue(), member);
          } catch (error) {
            // Tried again one `reconcileAfterMs` later, behind the marks due before then: a request
            // whose consequences keep failing neither takes every tick nor holds back the others.
            log.warn('the reconciler could not deliver an outbox entry; it tries again later', { auth_req_id: ref?.auth_req_id, error: String(error) });
            await store.sortedAdd(keys.outboxDue(), member, now + options.reconcileAfterMs).catch(() => undefined);
          }
        }),
      );
      return due.length;
    },
  };
}
