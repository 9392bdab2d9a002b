import { keys, type StreamEntry } from '../store/index.ts';
import { backoffDelay } from './backoff.ts';
import { scheduleJob } from './delayed-jobs.ts';
import { parseJob, type JobOutcome } from './job.ts';
import type { JobQueueOptions } from './job-queue-types.ts';
import { JOBS_GROUP } from './job-stream.ts';

/** What running a job needs: the queue's options, with the backoff of a handler that threw. */
export type JobRunDeps = Pick<JobQueueOptions, 'store' | 'clock' | 'log' | 'handlers' | 'onRetry'> & { errorRetryDelaysMs: readonly number[] };

/**
 * Runs the job of one stream entry with its handler, schedules its retry when it asks for one (or
 * threw, within `errorRetryDelaysMs`), and acknowledges the entry last. An entry that is not a job is
 * acknowledged and logged, so it cannot block the queue.
 * @throws when the store fails; the entry stays pending, and another consumer takes it over.
 */
export async function runJob(deps: JobRunDeps, entry: StreamEntry): Promise<void> {
  const { store, clock, log, handlers, errorRetryDelaysMs } = deps;
  const stream = keys.jobs();
  const job = parseJob(entry.fields);
  if (!job) {
    log.error('job dropped: not a job', { job_id: entry.id, kind: entry.fields.kind });
    await store.streamAck(stream, JOBS_GROUP, [entry.id]);
    return;
  }
  const about = { job_id: entry.id, kind: job.kind, auth_req_id: job.auth_req_id, attempt: job.attempt };
  let outcome: JobOutcome;
  try {
    outcome = await handlers[job.kind](job as never);
  } catch (error) {
    const wait = backoffDelay(job.attempt, errorRetryDelaysMs);
    log.error(wait === null ? 'job failed; giving up' : 'job failed; will retry', { ...about, error: String(error) });
    outcome = wait === null ? 'failed' : { retryInMs: wait };
  }
  if (typeof outcome === 'object') {
    const next = { ...job, attempt: job.attempt + 1 };
    await scheduleJob(store, clock, next, outcome.retryInMs);
    deps.onRetry?.(next, outcome.retryInMs);
  }
  // Last: a crash before this line leaves the entry pending, and another consumer runs it again.
  await store.streamAck(stream, JOBS_GROUP, [entry.id]);
}
