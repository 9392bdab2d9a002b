import { intervalTicker, type Background, type Clock, type Logger, type Ticker } from '../runtime/index.ts';
import { keys, type Store, type StreamEntry } from '../store/index.ts';
import { DEFAULT_BACKOFF_MS, backoffDelay } from './backoff.ts';
import { nextDueAt, promoteDueJobs, scheduleJob } from './delayed-jobs.ts';
import { jobFields, parseJob, type Job, type JobHandlers, type JobOutcome, type NewJob } from './job.ts';

/** The consumer group every instance reads the queue (`keys.jobs()`) through. */
export const JOBS_GROUP = 'workers';

/** Options of {@link createJobQueue}; all but the first six have production defaults. */
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
  /** The backoff of a job whose handler threw: {@link DEFAULT_BACKOFF_MS}, then it is dropped (and logged). */
  errorRetryDelaysMs?: readonly number[];
  /** The timer of the polls; {@link intervalTicker} by default, a manual one in tests. */
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
  let ran = 0;
  let closed = false;
  let cancelTimers: (() => void) | null = null;
  let groupReady: Promise<unknown> | null = null;
  let claimCursor = '0-0';
  let pumping: Promise<number> | null = null;
  let again = false;
  let againClaim = false;
  let lastConsumerSweep = Number.NEGATIVE_INFINITY;

  /** Creates the group once per process, and again when it has vanished (a Redis that lost its data). */
  function ensureGroup(): Promise<unknown> {
    groupReady ??= store.streamGroupCreate(stream, JOBS_GROUP).catch((error: unknown) => {
      groupReady = null;
      throw error;
    });
    return groupReady;
  }

  async function readNew(count: number): Promise<StreamEntry[]> {
    await ensureGroup();
    const entries = await store.streamGroupRead(stream, JOBS_GROUP, consumer, count);
    if (entries) return entries;
    groupReady = null;
    await ensureGroup();
    return (await store.streamGroupRead(stream, JOBS_GROUP, consumer, count)) ?? [];
  }

  /** Takes over stale entries, walking the pending list from where the last walk stopped. */
  async function claimStale(count: number): Promise<StreamEntry[]> {
    await ensureGroup();
    // Bounded: one call looks at up to 10 × count pending entries; a long list is walked over a few polls.
    for (let step = 0; step < 4; step++) {
      const result = await store.streamClaim(stream, JOBS_GROUP, consumer, { minIdleMs, count, cursor: claimCursor });
      if (!result) {
        groupReady = null;
        return [];
      }
      claimCursor = result.cursor;
      // An entry this instance is still running was claimed back by itself: it is running already.
      const fresh = result.entries.filter((entry) => !running.has(entry.id));
      if (fresh.length > 0 || claimCursor === '0-0') return fresh;
    }
    return [];
  }

  async function run(entry: StreamEntry): Promise<void> {
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
      options.onRetry?.(next, outcome.retryInMs);
    }
    // Last: a crash before this line leaves the entry pending, and another consumer runs it again.
    await store.streamAck(stream, JOBS_GROUP, [entry.id]);
  }

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

  async function removeIdleConsumers(): Promise<string[]> {
    const removed: string[] = [];
    for (const other of await store.streamConsumers(stream, JOBS_GROUP)) {
      if (other.name === consumer || other.pending > 0 || other.idleMs < idleConsumerMs) continue;
      // Checked again in the store, atomically: a job delivered to it since the listing keeps it.
      if (await store.streamConsumerRemove(stream, JOBS_GROUP, other.name, { minIdleMs: idleConsumerMs })) {
        removed.push(other.name);
        log.info('job consumer removed from the group: nothing pending, idle', { consumer: other.name, idle_ms: other.idleMs });
      }
    }
    return removed;
  }

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
