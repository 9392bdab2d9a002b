import { describe, expect, it } from 'vitest';
import { keys } from '../store/index.ts';
import type { JobOutcome } from './job.ts';
import { JOBS_GROUP } from './job-queue.ts';
import { manualTicker, ping, world } from './job-queue.test-support.ts';

/** Started and stopped: polling and promotion on their tickers, and a stopped instance finishing the job it runs. */
describe('createJobQueue', () => {
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
});
