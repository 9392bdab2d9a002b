import { keys } from '../store/index.ts';
import { parseMark } from './outbox-marks.ts';
import type { Outbox, OutboxDeps } from './outbox-types.ts';

/**
 * The reconciler ({@link Outbox.reconcile}) over the outbox's `drain`: takes up to `batchSize` marks
 * of `keys.outboxDue` that are due, drains each one's request, and drops the mark, or puts it back
 * `reconcileAfterMs` later when its delivery failed.
 */
export function createReconciler(deps: () => OutboxDeps, drain: Outbox['drain'], options: { batchSize: number; reconcileAfterMs: number }): Outbox['reconcile'] {
  const { batchSize } = options;
  return async function reconcile() {
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
  };
}
