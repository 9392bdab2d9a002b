import { describe, expect, it } from 'vitest';
import { keys } from '../store/index.ts';
import { JOBS_GROUP } from './job-queue.ts';
import { manualTicker, ping, world } from './job-queue.test-support.ts';

/** Several instances on one queue: a dead one's jobs taken over, each job run once, `concurrency` respected, dead consumers removed. */
describe('createJobQueue', () => {
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
