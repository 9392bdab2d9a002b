import { describe, expect, it } from 'vitest';
import { silentLogger, type Ticker } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { world } from './expiry-sweeper.test-support.ts';

/** How sweeps run: batch after batch, stale entries dropped, one sweep at a time, on every tick, with the audit retention. */
describe('createExpirySweeper', () => {
  it('reads batch after batch until one comes back short', async () => {
    const w = world({ batchSize: 2 });
    for (let i = 0; i < 5; i++) await w.request(1);
    w.clock.advance(1);
    expect(await w.sweeper.sweep()).toBe(5);
    expect(w.settled).toHaveLength(5);
  });

  it('drops the entries of requests that are gone or were decided, telling nobody', async () => {
    const w = world();
    const gone = await w.request(5);
    await w.store.delete(keys.request(gone.tenant, gone.auth_req_id));
    await w.request(5, 'denied');
    w.clock.advance(5);
    expect(await w.sweeper.sweep()).toBe(2);
    expect(w.settled).toEqual([]);
    expect(await w.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, 10)).toEqual([]);
  });

  it('joins a sweep that is already running instead of starting a second one', async () => {
    const w = world();
    await w.request(1);
    w.clock.advance(1);
    const [first, second] = [w.sweeper.sweep(), w.sweeper.sweep()];
    expect(second).toBe(first);
    expect(await first).toBe(1);
    expect(w.settled).toHaveLength(1);
  });

  it('sweeps on every tick between start and stop, and logs a failed sweep', async () => {
    let tick: (() => void) | null = null;
    let everyMs = 0;
    const ticker: Ticker = (next, ms) => {
      [tick, everyMs] = [next, ms];
      return () => {
        tick = null;
      };
    };
    const errors: string[] = [];
    const w = world({ ticker, log: { ...silentLogger, error: (message) => void errors.push(message) } });
    w.sweeper.start();
    w.sweeper.start();
    expect(everyMs).toBe(1000);
    await w.request(1);
    w.clock.advance(1);
    tick!();
    await w.sweeper.sweep();
    expect(w.settled).toHaveLength(1);

    w.store.sortedRangeByScore = async () => {
      throw new Error('store down');
    };
    tick!();
    await new Promise((resolve) => setImmediate(resolve));
    expect(errors).toEqual(['expiry sweep failed']);

    w.sweeper.stop();
    expect(tick).toBeNull();
  });

  it('runs the audit retention in the first sweep, then once per minute of the clock, and a failed one fails no sweep', async () => {
    const errors: string[] = [];
    const w = world({ log: { ...silentLogger, error: (message) => void errors.push(message) } });
    let trims = 0;
    w.audit.trim = async () => {
      trims += 1;
      if (trims === 2) throw new Error('store down');
      return [];
    };
    await w.sweeper.sweep();
    await w.sweeper.sweep();
    expect(trims).toBe(1);
    w.clock.advance(60);
    await w.request(0);
    expect(await w.sweeper.sweep()).toBe(1);
    expect(trims).toBe(2);
    expect(errors).toEqual(['audit retention failed']);
  });
});
