import type { Clock, Logger } from '../runtime/index.ts';
import { type IndexStore, keys, type StreamStore } from '../store/index.ts';
import { jobFields, parseJob, type Job } from './job.ts';

/**
 * Retries waiting for their due time: a sorted set (`keys.jobsDelayed()`) scored by the due time on
 * the injected clock (epoch ms), each member `[dueAt, fields]` as JSON, the same ids-only fields as a
 * stream entry. Once due, {@link promoteDueJobs} moves them into the queue's stream.
 *
 * Why a sorted set rather than a `not_before` field on stream entries: a consumer would have to
 * read an entry that is not due, put it back and read it again until it is (a busy loop that also
 * resets how long the entry has been idle); here the stream only ever holds work that can run now,
 * and reading what is due costs what is due (ZRANGE … BYSCORE LIMIT), however many retries wait.
 */

/** Adds `job` to the retries, due `delayMs` from the clock's now. */
export async function scheduleJob(store: IndexStore, clock: Clock, job: Job, delayMs: number): Promise<void> {
  const dueAt = clock.now() + delayMs;
  await store.sortedAdd(keys.jobsDelayed(), JSON.stringify([dueAt, jobFields(job)]), dueAt);
}

/** A batch of due retries per store call; a promotion reads at most 10 batches, so one tick stays short. */
const BATCH = 100;

/**
 * Moves the retries due by the clock into the queue's stream; answers how many it moved. Each is
 * appended first and removed afterwards (XADD, then ZREM: two keys in two slots, so not one atomic
 * step), so a crash in between leaves it to be moved again: a duplicate job, never a lost one. Run
 * by one instance at a time (the promotion lease), so two instances do not both move an entry.
 */
export async function promoteDueJobs(store: IndexStore & Pick<StreamStore, 'streamAppend'>, clock: Clock, log: Logger): Promise<number> {
  let moved = 0;
  for (let batch = 0; batch < 10; batch++) {
    const due = await store.sortedRangeByScore(keys.jobsDelayed(), clock.now(), BATCH);
    for (const member of due) {
      const job = parseMember(member)?.job;
      if (job) await store.streamAppend(keys.jobs(), jobFields(job));
      else log.error('delayed job dropped: not a job', {});
      await store.sortedRemove(keys.jobsDelayed(), member);
      moved += 1;
    }
    if (due.length < BATCH) break;
  }
  return moved;
}

/** When the earliest retry waiting is due (epoch ms), or null when none is waiting. */
export async function nextDueAt(store: IndexStore): Promise<number | null> {
  const [first] = await store.sortedRangeByScore(keys.jobsDelayed(), Number.POSITIVE_INFINITY, 1);
  return first === undefined ? null : (parseMember(first)?.dueAt ?? null);
}

/** A member read back, or null when it does not hold a due time and a job. */
function parseMember(member: string): { dueAt: number; job: Job | null } | null {
  try {
    const [dueAt, fields] = JSON.parse(member) as [unknown, unknown];
    if (typeof dueAt !== 'number') return null;
    return { dueAt, job: fields && typeof fields === 'object' ? parseJob(fields as Record<string, string>) : null };
  } catch {
    return null;
  }
}
