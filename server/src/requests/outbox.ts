import { keys, type Fields } from '../store/index.ts';
import { outboxField, outboxOf, PROPOSE_SEQ, type Swap, type Transition } from './lifecycle.ts';
import { createDelivery } from './outbox-delivery.ts';
import { markOf } from './outbox-marks.ts';
import { createReconciler } from './outbox-reconciler.ts';
import type { Consequences, Outbox, OutboxDeps, OutboxOptions } from './outbox-types.ts';
import type { RequestRef } from './request-deadlines.ts';
import { fromFields, requestOf } from './request-fields.ts';

export type { Consequence, Consequences, Outbox, OutboxDeps, OutboxOptions, TransitionEvent } from './outbox-types.ts';

/** The creation's outbox entry, to write with the new record (`Store.hashCreate`). */
export function creationFields(createdAt: number): Fields {
  return { [outboxField(PROPOSE_SEQ)]: JSON.stringify({ op: 'propose', at: createdAt } satisfies Transition) };
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

  const { deliver, deliverLive, inFlight } = createDelivery(deps, consequences);

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
    // audit trail keeps the order of the transitions; a second delivery of one lands once. One this
    // instance is delivering already is waited for, not delivered again: N swaps of one record in
    // flight together (a mandate's spends) would otherwise deliver N × (N − 1) / 2 entries.
    for (const earlier of outboxOf(fields)) {
      if (earlier.seq >= seq) continue;
      const underway = inFlight(ref, earlier.seq);
      await (underway ?? deliverLive(ref, earlier.seq, earlier.transition, request, null));
    }
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
    reconcile: createReconciler(deps, drain, { batchSize, reconcileAfterMs: options.reconcileAfterMs }),
  };
}
