import type { Store } from './types.ts';
import type { StoreHarness } from './contract/harness.ts';
import { describeBoundedIncrementContract } from './contract/bounded-increment.case.ts';
import { describeCompareAndSetContract } from './contract/compare-and-set.case.ts';
import { describeHashThrottleContract } from './contract/hash-throttle.case.ts';
import { describeIndexStoreContract } from './contract/index-store.case.ts';
import { describeOutboxContract } from './contract/outbox.case.ts';
import { describeQueueStoreContract } from './contract/queue-store.case.ts';
import { describeRateLimitContract } from './contract/rate-limit.case.ts';
import { describeRecordStoreContract } from './contract/record-store.case.ts';
import { describeSortedWindowContract } from './contract/sorted-window.case.ts';
import { describeStreamStoreContract } from './contract/stream-store.case.ts';
import { describeStreamTrimContract } from './contract/stream-trim.case.ts';
import { describeWindowScaleContract } from './contract/window-scale.case.ts';
import { describeWindowStoreContract } from './contract/window-store.case.ts';

export type { StoreHarness } from './contract/harness.ts';

/**
 * The behaviour every {@link Store} must show (docs/design.md "Storage"): the contract suite of
 * each capability (`contract/*.case.ts`) in turn, each a vitest suite of its own with its own
 * stores. Each test uses its own keys, so implementations may share a server with other test files.
 *
 * @param name - the suites' title, e.g. `'RedisStore'`.
 * @param makeStore - called once per suite (and once per peer); the stores are closed afterwards.
 * @param harness - time and extra connections, see {@link StoreHarness}.
 */
export function describeStoreContract(name: string, makeStore: () => Promise<Store>, harness: StoreHarness): void {
  describeRecordStoreContract(name, makeStore, harness);
  describeCompareAndSetContract(name, makeStore, harness);
  describeBoundedIncrementContract(name, makeStore, harness);
  describeHashThrottleContract(name, makeStore, harness);
  describeWindowStoreContract(name, makeStore, harness);
  describeWindowScaleContract(name, makeStore, harness);
  describeSortedWindowContract(name, makeStore, harness);
  describeRateLimitContract(name, makeStore, harness);
  describeIndexStoreContract(name, makeStore, harness);
  describeStreamStoreContract(name, makeStore, harness);
  describeStreamTrimContract(name, makeStore, harness);
  describeQueueStoreContract(name, makeStore, harness);
  describeOutboxContract(name, makeStore, harness);
}
