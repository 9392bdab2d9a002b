import type { Background, Clock, Logger, Ticker } from '../runtime/index.ts';
import type { Store } from '../store/index.ts';
import type { Job, JobHandlers, NewJob } from './job.ts';

/** Options of `createJobQueue` (`job-queue.ts`); all but the first six have production defaults. */
export interface JobQueueOptions {
  store: Store;
  /** Due times of retries are on this clock (epoch ms). */
  clock: Clock;
  log: Logger;
  /** Every job run is tracked here, so a graceful shutdown and the tests can `drain()` it. */
  background: Background;
  handlers: JobHandlers;
  /** This instance's name in the consumer group: unique per process, so a restarted one is another consumer. */
  consumer: string;
  /**
   * Whether this instance runs jobs on its own: right after it enqueues one, when one of its jobs
   * finishes, and on every poll once started. True by default; false leaves them to other instances
   * (and to explicit {@link JobQueue.drain} calls).
   */
  consume?: boolean;
  /** Jobs this instance runs at once: 16 by default. */
  concurrency?: number;
  /**
   * How long (ms) a job may stay delivered to a consumer without being acknowledged before another
   * consumer takes it over: 30 s by default. It must be longer than any job runs (a notification
   * attempt is bounded by its 5 s timeout), or a slow job would be run twice.
   */
  minIdleMs?: number;
  /**
   * How long (ms) another consumer of the group may go without a delivery, holding nothing pending,
   * before a poll removes it from the group (see {@link JobQueue.removeIdleConsumers}): 10 ×
   * `minIdleMs` by default (5 min). A dead instance's consumer reaches it once its jobs were taken
   * over; the bound is long so that the group is not churned by instances that merely had no work.
   */
  idleConsumerMs?: number;
  /** Milliseconds between looks for work that no wake-up announced (other instances' jobs, stale jobs, due retries): 1000. */
  pollMs?: number;
  /** The backoff of a job whose handler threw: `DEFAULT_BACKOFF_MS` (`backoff.ts`), then it is dropped (and logged). */
  errorRetryDelaysMs?: readonly number[];
  /** The timer of the polls; `intervalTicker` by default, a manual one in tests. */
  ticker?: Ticker;
  /**
   * The timer that moves due retries into the queue. `createDeps` wraps it in a lease in the store,
   * so one instance at a time does it; by default it is {@link JobQueueOptions.ticker}.
   */
  promotionTicker?: Ticker;
  /** Told of every retry scheduled, with its wait in ms (the tests record the backoff with it). */
  onRetry?: (job: Job, delayMs: number) => void;
}

/**
 * The durable queue of background work (docs/reliability.md "Job consumers"): Web Push to people's
 * devices, ping and push notifications to clients, and their retries. Done once across all
 * instances, at least once in total, and safe to repeat.
 */
export interface JobQueue {
  /**
   * Appends a job to the queue (or, with `delayMs`, to the retries waiting for their due time) and,
   * on a consuming instance, wakes its consumer. Resolves once the job is in the store: from then on
   * it survives this instance.
   *
   * @throws when the store fails; nothing was enqueued.
   */
  enqueue(job: NewJob, options?: { delayMs?: number }): Promise<void>;
  /**
   * Runs every job that can run now on this instance: those never delivered, and those delivered
   * to a consumer that has held them longer than `minIdleMs`. Resolves when none is left and none is
   * running; answers how many jobs ran meanwhile. Retries not yet due are left waiting.
   */
  drain(): Promise<number>;
  /**
   * Moves the retries that are due (by the clock) into the queue and wakes the consumer; answers how
   * many moved. `start` runs it on the promotion timer; tests call it after moving the clock.
   */
  tick(): Promise<number>;
  /**
   * Removes from the group every other consumer that holds no pending entry and has had none
   * delivered for `idleConsumerMs` (a dead instance's, once its jobs were claimed), checked and
   * removed atomically per consumer (`Store.streamConsumerRemove`), so a job is never stranded on a
   * removed consumer; answers the names removed. Never removes this instance's own consumer. The
   * polls run it once per `minIdleMs` on the clock.
   */
  removeIdleConsumers(): Promise<string[]>;
  /** When the earliest retry waiting is due (epoch ms), or null when none is waiting. */
  nextDueAt(): Promise<number | null>;
  /** Polls every `pollMs` and promotes due retries on the promotion timer; a second call does nothing. */
  start(): void;
  /**
   * Stops the timers and taking jobs, and resolves once the jobs running have finished. Jobs still
   * queued stay for the other instances (or this one's next start).
   */
  stop(): Promise<void>;
}
