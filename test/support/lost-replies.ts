import type { Store } from '../../server/src/store/index.ts';

/**
 * Makes `store`'s swaps whose outbox entry is `op` apply and then fail as a lost reply does
 * (ioredis' timeout): the instance answers 503 and runs none of the swap's consequences, as when
 * Redis pauses past the command timeout or the instance dies with the reply on the wire.
 */
export function loseRepliesOf(store: Store, op: string): void {
  const compareAndSet = store.compareAndSet.bind(store);
  store.compareAndSet = async (key, guards, set, options) => {
    const result = await compareAndSet(key, guards, set, options);
    if (result.ok && options?.outbox?.includes(`"op":"${op}"`)) throw new Error('Command timed out');
    return result;
  };
}

/** Seconds after which a swap's outbox mark is due: `reconcileAfterMs` (command timeout + 3 s) has passed. */
export const PAST_THE_MARK_SECONDS = 6;
