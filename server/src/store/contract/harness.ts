import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Store } from '../types.ts';

/** How a contract suite drives one {@link Store} implementation. */
export interface StoreHarness {
  /** Lets `ms` milliseconds of store time pass: advance an injected clock, or really wait. */
  elapse(ms: number): Promise<void>;
  /**
   * Another handle on the same data (Redis: another connection with the same prefix), so the
   * races run across connections. Leave out when the store is the only handle (memory).
   */
  connectPeer?: () => Promise<Store>;
}

/** The contract suites' clock: an epoch-ms instant that every store accepts. */
export const T = 1_700_000_000_000;

/**
 * Opens the suite's store and, where the harness has them, four peers on the same data before the
 * suite's tests, hands them over (`opened[0]` is the store itself), and closes them all after.
 */
export function openHandles(makeStore: () => Promise<Store>, harness: StoreHarness, use: (opened: Store[]) => void): void {
  let handles: Store[] = [];
  beforeAll(async () => {
    const store = await makeStore();
    const peers = harness.connectPeer ? await Promise.all([1, 2, 3, 4].map(() => harness.connectPeer!())) : [];
    handles = [store, ...peers];
    use(handles);
  });
  afterAll(async () => {
    await Promise.all(handles.map((handle) => handle.close()));
  });
}

/** One TTL case: its behaviour, what writes the key with a 1 s TTL, and what must hold 1.1 s later. */
export type TtlCase = [behaviour: string, arrange: (k: string) => Promise<unknown>, check: (k: string) => Promise<void>];

/**
 * The TTL cases of one capability: every case is arranged with a 1 s TTL, then time passes once
 * (1.1 s) for all of them, so a Redis suite waits once rather than once per case.
 */
export function describeTtl(key: (label: string) => string, harness: StoreHarness, cases: TtlCase[]): void {
  describe('TTL', () => {
    const caseKeys = cases.map(() => key('ttl'));
    beforeAll(async () => {
      await Promise.all(cases.map(([, arrange], i) => arrange(caseKeys[i]!)));
      await harness.elapse(1100);
    });
    it.each(cases.map(([behaviour, , check], i) => [behaviour, check, i] as const))('%s', async (_, check, i) => {
      await check(caseKeys[i]!);
    });
  });
}
