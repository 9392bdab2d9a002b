import type { Ticker } from '../runtime/index.ts';
import { Background, ManualClock, silentLogger, type Logger } from '../runtime/index.ts';
import { MemoryStore } from '../store/index.ts';
import type { Job, JobHandlers, JobOutcome } from './job.ts';
import { createJobQueue, type JobQueueOptions } from './job-queue.ts';

// What the job-queue-*.test.ts files share: instances of the queue on one memory store and manual
// clock, tickers fired by hand, a log that keeps its entries, and a ping job. Test code only.

/** A ticker the test fires by hand. */
export function manualTicker() {
  const ticks: (() => void)[] = [];
  const ticker: Ticker = (tick) => {
    ticks.push(tick);
    return () => ticks.splice(ticks.indexOf(tick), 1);
  };
  return {
    ticker,
    fire: () => {
      for (const tick of ticks) tick();
    },
    get running() {
      return ticks.length;
    },
  };
}

/** A log that keeps every entry, to show what is (and is not) logged. */
export function recordingLog() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = {
    info: (message, fields) => void entries.push({ level: 'info', message, ...(fields ? { fields } : {}) }),
    warn: (message, fields) => void entries.push({ level: 'warn', message, ...(fields ? { fields } : {}) }),
    error: (message, fields) => void entries.push({ level: 'error', message, ...(fields ? { fields } : {}) }),
  };
  return { log, entries };
}

/** One store and clock, and instances of the queue on them, each recording the jobs it ran. */
export function world() {
  const clock = new ManualClock();
  const store = new MemoryStore({ now: () => clock.now() });
  const ran: { instance: string; job: Job }[] = [];
  let answer: (job: Job) => Promise<JobOutcome> = async () => 'done';
  const instance = (name: string, options: Partial<JobQueueOptions> = {}) => {
    const background = new Background(silentLogger);
    const handle = async (job: Job) => {
      ran.push({ instance: name, job });
      return answer(job);
    };
    const handlers: JobHandlers = { client_notification: handle, request_push: handle, expiry_push: handle, mandate_receipt: handle };
    const queue = createJobQueue({ store, clock, log: silentLogger, background, handlers, consumer: name, ...options });
    return { queue, background };
  };
  return { clock, store, ran, instance, answer: (next: typeof answer) => void (answer = next) };
}

/** A client notification job for one request. */
export const ping = { kind: 'client_notification', tenant: 'default', auth_req_id: 'req_0123456789abcdef' } as const;
