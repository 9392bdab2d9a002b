import type { Deps } from '../deps.ts';
import { parseDeadlineMember, type RequestRef } from './request-deadlines.ts';

/** At most this many batches per sweep, so one tick stays short even after a long outage. */
const MAX_BATCHES_PER_SWEEP = 50;

/**
 * Handles the due entries of one index, batch by batch: each batch is handled concurrently first,
 * and the entries handled are removed afterwards (one round trip for the batch, pipelined), but
 * for those whose handler answered `'keep'` (it moved the entry to a later deadline). `parse`
 * reads a member (`<tenant>:<auth_req_id>` by default); one it cannot read is dropped.
 * @param batchSize - entries read per store call; a batch that comes back short ends the pass.
 * @returns how many entries were handled.
 * @throws the first handler's failure, once the batch's other entries were handled and removed.
 */
export async function sweepIndex<Ref extends RequestRef>(current: Pick<Deps, 'store' | 'clock'>, key: string, batchSize: number, handle: (ref: Ref) => Promise<unknown>, parse: (member: string) => Ref | null = parseDeadlineMember as (member: string) => Ref | null): Promise<number> {
  let handled = 0;
  for (let batch = 0; batch < MAX_BATCHES_PER_SWEEP; batch++) {
    const due = await current.store.sortedRangeByScore(key, current.clock.now(), batchSize);
    // The batch is settled concurrently (each one a compare-and-swap of its own request), then
    // removed from the index together; an entry whose handling failed stays for the next sweep.
    const results = await Promise.allSettled(
      due.map(async (member) => {
        const ref = parse(member);
        return ref ? handle(ref) : undefined;
      }),
    );
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
