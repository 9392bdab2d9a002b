import { intervalTicker } from '../runtime/index.ts';
import { keys, type StreamEntry } from '../store/index.ts';
import { DEFAULT_BACKOFF_MS } from './backoff.ts';
import { nextDueAt, promoteDueJobs, scheduleJob } from './delayed-jobs.ts';
import { jobFields, type Job } from './job.ts';
import { removeIdleConsumers as removeIdle } from './job-consumers.ts';
import type { JobQueue, JobQueueOptions } from './job-queue-types.ts';
import { runJob } from './job-run.ts';
import { createJobStream } from './job-stream.ts';

export type { JobQueue, JobQueueOptions } from './job-queue-types.ts';
export { JOBS_GROUP } from './job-stream.ts';

/**
 * Creates the job queue: a Redis Stream (`keys.jobs()`) read through one consumer group by every
 * instance, plus the retries waiting for their due time (see `delayed-jobs.ts`).
 *
 * A consumer group gives each entry to one consumer and keeps it pending there until it is
 * acknowledged (XREADGROUP, XACK), so a job runs once across instances in the normal case; and an
 * entry whose consumer died is taken over by another after `minIdleMs` (XAUTOCLAIM), so it runs at
 * least once in total. A job is acknowledged (and deleted) only after it ran: delivered, given up
 * on, skipped, or its retry enqueued. Handlers are safe to repeat, because a crash between running
 * and acknowledging runs a job again. Retries are due on the injected clock, which lets the tests
 * move time instead of waiting. Every store call is one command on one key (the acknowledgement is
 * one script on one key), so the queue works on Redis Cluster.
 *
 * An instance wakes its own consumer when it enqueues, so the work is usually done by the instance
 * that caused it, right away; the poll picks up the rest. A job whose entry cannot be parsed is
 * acknowledged and logged (by id), so it cannot block the queue.
 *
 * @example Wiring, as `createDeps` does
 * ```ts
 * const jobs = createJobQueue({ store, clock, log, background, consumer: 'inst_abc', handlers });
 * jobs.start();            // main.ts
 * await jobs.enqueue({ kind: 'client_notification', tenant, auth_req_id });
 * await jobs.stop();       // on SIGTERM
 * ```
 */
export function createJobQueue(options: JobQueueOptions): JobQueue {
  const { store, clock, log, background, handlers, consumer } = options;
  const consume = options.consume ?? true;
  const concurrency = options.concurrency ?? 16;
  const minIdleMs = options.minIdleMs ?? 30_000;
  const pollMs = options.pollMs ?? 1000;
  const idleConsumerMs = options.idleConsumerMs ?? 10 * minIdleMs;
  const errorRetryDelaysMs = options.errorRetryDelaysMs ?? DEFAULT_BACKOFF_MS;
  const ticker = options.ticker ?? intervalTicker;
  const promotionTicker = options.promotionTicker ?? ticker;
  const stream = keys.jobs();

  const running = new Map<string, Promise<void>>();
  const { readNew, claimStale } = createJobStream({ store, consumer, minIdleMs, isRunning: (id) => running.has(id) });
  let ran = 0;
  let closed = false;
  let cancelTimers: (() => void) | null = null;
  let pumping: Promise<number> | null = null;
  let again = false;
  let againClaim = false;
  let lastConsumerSweep = Number.NEGATIVE_INFINITY;

  /** Runs one entry's job (`job-run.ts`). */
  const run = (entry: StreamEntry) => runJob({ store, clock, log, handlers, errorRetryDelaysMs, onRetry: options.onRetry }, entry);

  function launch(entry: StreamEntry): boolean {
    if (running.has(entry.id)) return false;
    const task = run(entry)
      .catch((error: unknown) => log.error('job left pending; it will be taken over', { job_id: entry.id, error: String(error) }))
      .finally(() => {
        running.delete(entry.id);
        ran += 1;
        wake(false);
      });
    running.set(entry.id, task);
    background.run('job', () => task);
    return true;
  }

  /** Starts jobs until this instance runs `concurrency` of them or none is left to take. */
  async function fill(withClaim: boolean): Promise<number> {
    let started = 0;
    while (!closed && running.size < concurrency) {
      const room = concurrency - running.size;
      let entries = await readNew(room);
      if (entries.length === 0 && withClaim) entries = await claimStale(room);
      if (entries.length === 0) break;
      for (const entry of entries) if (launch(entry)) started += 1;
    }
    return started;
  }

  /** One fill at a time: a call while one runs makes it go round once more, and shares its answer. */
  function pump(withClaim: boolean): Promise<number> {
    if (pumping) {
      again = true;
      againClaim ||= withClaim;
      return pumping;
    }
    pumping = (async () => {
      let started = 0;
      let claim = withClaim;
      try {
        for (;;) {
          again = false;
          againClaim = false;
          started += await fill(claim);
          if (!again) return started;
          claim = againClaim;
        }
      } finally {
        pumping = null;
      }
    })();
    return pumping;
  }

  /** Wakes this instance's consumer, when it consumes on its own. */
  function wake(withClaim: boolean): void {
    if (!consume || closed) return;
    background.run('job consumer', () => pump(withClaim));
  }

  /** The idle consumers' sweep (`job-consumers.ts`), as `JobQueue.removeIdleConsumers`. */
  const removeIdleConsumers = () => removeIdle({ store, log, consumer, idleConsumerMs });

  /** On a poll: the idle consumers' sweep, once per `minIdleMs` on the clock. */
  function sweepConsumers(): void {
    const now = clock.now();
    if (now - lastConsumerSweep < minIdleMs) return;
    lastConsumerSweep = now;
    background.run('job consumers', () => removeIdleConsumers());
  }

  async function tick(): Promise<number> {
    const moved = await promoteDueJobs(store, clock, log);
    if (moved > 0) wake(false);
    return moved;
  }

  return {
    async enqueue(job, enqueueOptions = {}) {
      const full = { ...job, attempt: job.attempt ?? 1 } as Job;
      if (enqueueOptions.delayMs !== undefined && enqueueOptions.delayMs > 0) {
        await scheduleJob(store, clock, full, enqueueOptions.delayMs);
        return;
      }
      await store.streamAppend(stream, jobFields(full));
      wake(false);
    },
    async drain() {
      const before = ran;
      for (;;) {
        const started = await pump(true);
        if (running.size > 0) {
          await Promise.allSettled([...running.values()]);
          continue;
        }
        if (started === 0) return ran - before;
      }
    },
    tick,
    removeIdleConsumers,
    nextDueAt: () => nextDueAt(store),
    start() {
      closed = false;
      if (cancelTimers) return;
      const stopPolls = ticker(() => {
        wake(true);
        if (!closed) sweepConsumers();
      }, pollMs);
      const stopPromotions = promotionTicker(() => {
        background.run('job promotion', () => tick());
      }, pollMs);
      cancelTimers = () => {
        stopPolls();
        stopPromotions();
      };
    },
    async stop() {
      closed = true;
      cancelTimers?.();
      cancelTimers = null;
      await Promise.allSettled([...running.values()]);
    },
  };
}
