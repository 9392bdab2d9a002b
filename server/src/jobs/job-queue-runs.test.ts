import { describe, expect, it } from 'vitest';
import { Background, silentLogger } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import type { Job, JobOutcome } from './job.ts';
import { createJobQueue, JOBS_GROUP } from './job-queue.ts';
import { ping, recordingLog, world } from './job-queue.test-support.ts';

/** One job's life: run at once and deleted, retried on its backoff or given up, and an entry that is no job dropped. */
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
});
