import { describe, expect, it } from 'vitest';
import { ManualClock } from '../runtime/index.ts';
import { MemoryStore } from '../store/index.ts';
import type { Ticker } from '../runtime/index.ts';
import { leaseTicker } from './sweep-lease.ts';

/** Instances sharing one memory store and one manual clock, each with a manual timer under its lease. */
function world(count: number, store = new MemoryStore({ now: () => clock.now() }), clock = new ManualClock()) {
  const warnings: string[] = [];
  const log = { info() {}, warn: (message: string) => void warnings.push(message), error() {} };
  const instances = Array.from({ length: count }, (_, i) => {
    let fire = () => {};
    const manual: Ticker = (tick) => {
      fire = tick;
      return () => {};
    };
    const ran: number[] = [];
    let n = 0;
    leaseTicker({ store, holder: `inst_${i}`, log, ticker: manual })(() => ran.push(n), 1000);
    return {
      ran,
      async tick() {
        n += 1;
        fire();
        await new Promise((resolve) => setTimeout(resolve, 0));
      },
    };
  });
  return { clock, store, warnings, instances };
}

describe('leaseTicker', () => {
  it('runs the ticks of the instance that took the lease, and skips the others', async () => {
    const { instances } = world(3);
    for (let round = 0; round < 3; round++) for (const instance of instances) await instance.tick();
    expect(instances.map((instance) => instance.ran)).toEqual([[1, 2, 3], [], []]);
  });

  it('hands the lease over once its holder has not renewed it for three ticks', async () => {
    const { clock, instances } = world(2);
    const [first, second] = instances as [(typeof instances)[0], (typeof instances)[0]];
    await first.tick();
    clock.advance(2.9);
    await second.tick();
    expect(second.ran).toEqual([]);
    clock.advance(0.2);
    await second.tick();
    await first.tick();
    expect([first.ran, second.ran]).toEqual([[1], [2]]);
  });

  it('skips a tick, and says so, when the store cannot be asked', async () => {
    const store = new MemoryStore();
    store.compareAndSet = async () => {
      throw new Error('Command timed out');
    };
    const { instances, warnings } = world(1, store);
    await instances[0]!.tick();
    expect(instances[0]!.ran).toEqual([]);
    expect(warnings).toEqual(['lease not checked; tick skipped']);
  });
});
