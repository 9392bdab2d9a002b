import { describe, expect, it } from 'vitest';
import type { Ticker } from '../runtime/index.ts';
import { Background, ManualClock, silentLogger, type Logger } from '../runtime/index.ts';
import { keys, MemoryStore } from '../store/index.ts';
import type { Job, JobHandlers, JobOutcome } from './job.ts';
import { createJobQueue, JOBS_GROUP, type JobQueueOptions } from './job-queue.ts';

/** A ticker the test fires by hand. */
function manualTicker() {
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
function recordingLog() {
  const entries: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const log: Logger = {
    info: (message, fields) => void entries.push({ level: 'info', message, ...(fields ? { fields } : {}) }),
    warn: (message, fields) => void entries.push({ level: 'warn', message, ...(fields ? { fields } : {}) }),
    error: (message, fields) => void entries.push({ level: 'error', message, ...(fields ? { fields } : {}) }),
  };
  return { log, entries };
}

/** One store and clock, and instances of the queue on them, each recording the jobs it ran. */
function world() {
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

const ping = { kind: 'client_notification', tenant: 'default', auth_req_id: 'req_0123456789abcdef' } as const;

describe('createJobQueue', () => {
  it('runs a job on the instance that enqueued it right away, then acknowledges and deletes it', async () => {
    const w = world();
    const a = w.instance('a');
    await a.queue.enqueue(ping);
    await a.background.drain();
    expect(w.ran).toEqual([{ instance: 'a', job: { ...ping, attempt: 1 } }]);
    expect(await w.store.streamPendingCount(keys.jobs(), JOBS_GROUP)).toBe(0);
    expect(await w.store.streamRange(keys.jobs())).toEqual([]);
  });

  it('holds ids only in the stream', async () => {
    const w = world();
    const a = w.instance('a', { consume: false });
    await a.queue.enqueue({ kind: 'request_push', tenant: 'default', auth_req_id: 'req_0123456789abcdef', sub: 'alice' });
    expect((await w.store.streamRange(keys.jobs())).map((entry) => entry.fields)).toEqual([{ kind: 'request_push', tenant: 'default', auth_req_id: 'req_0123456789abcdef', attempt: '1', sub: 'alice' }]);
  });

  it('enqueues the next attempt of a job that asks for a retry, due after its wait on the clock, not before', async () => {
    const w = world();
    const retries: [number, number][] = [];
    const a = w.instance('a', { onRetry: (job, delayMs) => void retries.push([job.attempt, delayMs]) });
    w.answer(async (job) => (job.attempt === 1 ? { retryInMs: 1000 } : 'done'));
    const start = w.clock.now();
    await a.queue.enqueue(ping);
    await a.background.drain();
    expect(w.ran.map((run) => run.job.attempt)).toEqual([1]);
    expect(retries).toEqual([[2, 1000]]);
    expect(await a.queue.nextDueAt()).toBe(start + 1000);

    w.clock.advance(0.999);
    expect(await a.queue.tick()).toBe(0);
    expect(await a.queue.drain()).toBe(0);
    w.clock.advance(0.001);
    expect(await a.queue.tick()).toBe(1);
    await a.background.drain();
    expect(w.ran.map((run) => run.job.attempt)).toEqual([1, 2]);
    expect(await a.queue.nextDueAt()).toBeNull();
    expect(await w.store.streamPendingCount(keys.jobs(), JOBS_GROUP)).toBe(0);
  });

  it('retries a job whose handler throws with the error backoff, then gives up, acknowledges it and says so by id only', async () => {
    const w = world();
    const { log, entries } = recordingLog();
    const background = new Background(silentLogger);
    const thrown: number[] = [];
    const fail = async (job: Job): Promise<JobOutcome> => {
      thrown.push(job.attempt);
      throw new Error('store unavailable');
    };
    const queue = createJobQueue({ store: w.store, clock: w.clock, log, background, consumer: 'a', errorRetryDelaysMs: [10, 20], handlers: { client_notification: fail, request_push: fail, expiry_push: fail, mandate_receipt: fail } });
    await queue.enqueue(ping);
    for (let step = 0; step < 5; step++) {
      await queue.drain();
      w.clock.advance(1);
      await queue.tick();
    }
    expect(thrown).toEqual([1, 2, 3]);
    expect(entries.map((entry) => entry.message)).toEqual(['job failed; will retry', 'job failed; will retry', 'job failed; giving up']);
    expect(entries[2]!.fields).toMatchObject({ kind: 'client_notification', auth_req_id: ping.auth_req_id, attempt: 3, error: 'Error: store unavailable' });
    expect(await queue.nextDueAt()).toBeNull();
    expect(await w.store.streamPendingCount(keys.jobs(), JOBS_GROUP)).toBe(0);
  });

  it('drops an entry that is not a job, acknowledging it so it cannot block the queue', async () => {
    const w = world();
    const a = w.instance('a', { consume: false });
    await w.store.streamAppend(keys.jobs(), { kind: 'client_notification', tenant: 'de{fault}', auth_req_id: 'x', attempt: '1' });
    await w.store.streamAppend(keys.jobs(), { kind: 'mine_bitcoin', tenant: 'default', auth_req_id: 'x', attempt: '1' });
    expect(await a.queue.drain()).toBe(2);
    expect(w.ran).toEqual([]);
    expect(await w.store.streamRange(keys.jobs())).toEqual([]);
  });

  it('lets another instance take over a job held by one that died, once it has been idle for minIdleMs', async () => {
    const w = world();
    const b = w.instance('b', { consume: false, minIdleMs: 30_000 });
    await b.queue.enqueue(ping);
    // Instance "dead" read the job, then died before acknowledging it.
    await w.store.streamGroupCreate(keys.jobs(), JOBS_GROUP);
    expect(await w.store.streamGroupRead(keys.jobs(), JOBS_GROUP, 'dead', 10)).toHaveLength(1);
    expect(await b.queue.drain()).toBe(0);
    w.clock.advance(29.999);
    expect(await b.queue.drain()).toBe(0);
    w.clock.advance(0.001);
    expect(await b.queue.drain()).toBe(1);
    expect(w.ran).toEqual([{ instance: 'b', job: { ...ping, attempt: 1 } }]);
    expect(await w.store.streamPendingCount(keys.jobs(), JOBS_GROUP)).toBe(0);
  });

  it('runs each of 60 jobs once when three instances drain at once', async () => {
    const w = world();
    const instances = ['a', 'b', 'c'].map((name) => w.instance(name, { consume: false, concurrency: 4 }));
    for (let i = 0; i < 60; i++) await instances[0]!.queue.enqueue({ ...ping, auth_req_id: `req_${String(i).padStart(16, '0')}` });
    const counts = await Promise.all(instances.map((instance) => instance.queue.drain()));
    expect(counts.reduce((sum, count) => sum + count, 0)).toBe(60);
    expect(new Set(w.ran.map((run) => run.job.auth_req_id)).size).toBe(60);
    expect(w.ran).toHaveLength(60);
  });

  it('runs at most `concurrency` jobs at once', async () => {
    const w = world();
    let now = 0;
    let most = 0;
    w.answer(async () => {
      now += 1;
      most = Math.max(most, now);
      await new Promise((resolve) => setTimeout(resolve, 5));
      now -= 1;
      return 'done';
    });
    const a = w.instance('a', { consume: false, concurrency: 3 });
    for (let i = 0; i < 10; i++) await a.queue.enqueue({ ...ping, auth_req_id: `req_${String(i).padStart(16, '0')}` });
    expect(await a.queue.drain()).toBe(10);
    expect(most).toBe(3);
  });

  it('polls on its ticker once started, promotes due retries on the promotion ticker, and stops both', async () => {
    const w = world();
    const polls = manualTicker();
    const promotions = manualTicker();
    const a = w.instance('a', { ticker: polls.ticker, promotionTicker: promotions.ticker });
    const other = w.instance('other', { consume: false });
    w.answer(async (job) => (job.attempt === 1 ? { retryInMs: 500 } : 'done'));
    a.queue.start();
    a.queue.start();
    expect([polls.running, promotions.running]).toEqual([1, 1]);

    // Enqueued by another instance: this one finds it on its next poll.
    await other.queue.enqueue(ping);
    expect(w.ran).toEqual([]);
    polls.fire();
    await a.background.drain();
    expect(w.ran.map((run) => [run.instance, run.job.attempt])).toEqual([['a', 1]]);

    w.clock.advance(0.5);
    promotions.fire();
    await a.background.drain();
    expect(w.ran.map((run) => [run.instance, run.job.attempt])).toEqual([
      ['a', 1],
      ['a', 2],
    ]);

    await a.queue.stop();
    expect([polls.running, promotions.running]).toEqual([0, 0]);
    await other.queue.enqueue(ping);
    await a.queue.enqueue(ping);
    await a.background.drain();
    expect(w.ran).toHaveLength(2);
  });

  it('lets a stopped instance finish the job it runs before stop() resolves', async () => {
    const w = world();
    let release: () => void = () => {};
    w.answer(() => new Promise<JobOutcome>((resolve) => (release = () => resolve('done'))));
    const a = w.instance('a');
    await a.queue.enqueue(ping);
    await new Promise((resolve) => setTimeout(resolve, 5));
    let stopped = false;
    const stopping = a.queue.stop().then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(await w.store.streamPendingCount(keys.jobs(), JOBS_GROUP)).toBe(0);
  });

  it("removes a dead instance's consumer once its jobs were taken over and it stayed idle past the bound, never its own", async () => {
    const w = world();
    const polls = manualTicker();
    // The dead instance: its consumer was delivered two jobs, then the process was killed (kill -9), so they stay pending on it.
    await w.store.streamGroupCreate(keys.jobs(), JOBS_GROUP);
    await w.store.streamAppend(keys.jobs(), { kind: 'client_notification', tenant: 'default', auth_req_id: 'req_0123456789abcdef', attempt: '1' });
    await w.store.streamAppend(keys.jobs(), { kind: 'client_notification', tenant: 'default', auth_req_id: 'req_fedcba9876543210', attempt: '1' });
    expect(await w.store.streamGroupRead(keys.jobs(), JOBS_GROUP, 'dead', 10)).toHaveLength(2);
    const live = w.instance('live', { minIdleMs: 1000, idleConsumerMs: 5000, ticker: polls.ticker, promotionTicker: manualTicker().ticker });
    live.queue.start();
    const consumers = async () => new Map((await w.store.streamConsumers(keys.jobs(), JOBS_GROUP)).map((c) => [c.name, c.pending]));

    w.clock.advance(1);
    polls.fire();
    await live.background.drain();
    // Taken over and run by the live instance; the dead consumer holds nothing now, but was active 1 s ago.
    expect(w.ran.map((run) => [run.instance, run.job.auth_req_id])).toEqual([
      ['live', 'req_0123456789abcdef'],
      ['live', 'req_fedcba9876543210'],
    ]);
    expect(await consumers()).toEqual(
      new Map([
        ['dead', 0],
        ['live', 0],
      ]),
    );

    w.clock.advance(4.5); // 5.5 s since the dead consumer's delivery, 4.5 s since the claim
    polls.fire();
    await live.background.drain();
    expect(await consumers()).toEqual(new Map([['live', 0]]));

    // Its own consumer, idle far past the bound, stays.
    w.clock.advance(60);
    polls.fire();
    await live.background.drain();
    expect(await consumers()).toEqual(new Map([['live', 0]]));
    expect(await live.queue.removeIdleConsumers()).toEqual([]);
    await live.queue.stop();
  });

  it('keeps a dead consumer whose jobs nobody took over yet, however long it is idle', async () => {
    const w = world();
    await w.store.streamGroupCreate(keys.jobs(), JOBS_GROUP);
    await w.store.streamAppend(keys.jobs(), { kind: 'client_notification', tenant: 'default', auth_req_id: 'req_0123456789abcdef', attempt: '1' });
    await w.store.streamGroupRead(keys.jobs(), JOBS_GROUP, 'dead', 10);
    const other = w.instance('other', { consume: false, idleConsumerMs: 1000 });
    w.clock.advance(3600);
    expect(await other.queue.removeIdleConsumers()).toEqual([]);
    expect(await w.store.streamConsumers(keys.jobs(), JOBS_GROUP)).toEqual([{ name: 'dead', pending: 1, idleMs: 3_600_000 }]);
  });
});
