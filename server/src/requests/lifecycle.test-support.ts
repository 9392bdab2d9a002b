import type { RequestState } from '@countersign/shared';
import { inject } from 'vitest';
import { Background, ManualClock, silentLogger } from '../runtime/index.ts';
import { connectRedisStore, MemoryStore, type Store } from '../store/index.ts';
import { createLifecycle, TRANSITIONS, type Lifecycle, type TransitionOp } from './lifecycle.ts';
import { createOutbox, type Consequences } from './outbox.ts';
import type { ApprovalRequest } from './request-record.ts';

/** The stores the lifecycle's tables run on: memory, and the run's Redis under a fresh prefix. Test code only. */
export const LIFECYCLE_STORES = [
  ['memory', async (): Promise<Store> => new MemoryStore()],
  ['redis', (): Promise<Store> => connectRedisStore(inject('redisUrl'), { prefix: `test:lifecycle:${Math.random().toString(36).slice(2)}:` })],
] as const;

/** A lifecycle over a real outbox on `store`, whose consequences only note each delivery (op, sequence number, state after). */
export interface LifecycleWorld {
  store: Store;
  clock: ManualClock;
  background: Background;
  delivered: { op: TransitionOp; seq: number; state: RequestState }[];
  lifecycle: Lifecycle;
}

/** Builds a {@link LifecycleWorld} (token lifetime 600 s, grace 600 s, retention 3600 s). Test code only. */
export function lifecycleWorld(store: Store): LifecycleWorld {
  const clock = new ManualClock();
  const background = new Background(silentLogger);
  const delivered: LifecycleWorld['delivered'] = [];
  const record = async (event: { transition: { op: TransitionOp }; seq: number; request: ApprovalRequest }) => void delivered.push({ op: event.transition.op, seq: event.seq, state: event.request.state });
  const consequences = Object.fromEntries(Object.keys(TRANSITIONS).map((op) => [op, { record: [record] }])) as unknown as Consequences;
  const outbox = createOutbox(
    () => ({ store, clock, log: silentLogger, background }),
    () => consequences,
    { swapDeadlineMs: 2000, reconcileAfterMs: 5000, nonce: () => Math.random().toString(36).slice(2, 11) },
  );
  const lifecycle = createLifecycle(outbox.swap, { approvalTokenTtl: 600, graceSeconds: 600, retentionSeconds: 3600 });
  return { store, clock, background, delivered, lifecycle };
}
