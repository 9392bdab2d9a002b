import type { Logger } from '../runtime/index.ts';
import { keys, type Store } from '../store/index.ts';
import { JOBS_GROUP } from './job-stream.ts';

/**
 * Removes from {@link JOBS_GROUP} every consumer but `consumer` that holds no pending entry and has had
 * none delivered for `idleConsumerMs` (`JobQueue.removeIdleConsumers`); answers the names removed.
 * @throws when the store fails; the consumers not yet looked at stay.
 */
export async function removeIdleConsumers(options: { store: Store; log: Logger; consumer: string; idleConsumerMs: number }): Promise<string[]> {
  const { store, log, consumer, idleConsumerMs } = options;
  const stream = keys.jobs();
  const removed: string[] = [];
  for (const other of await store.streamConsumers(stream, JOBS_GROUP)) {
    if (other.name === consumer || other.pending > 0 || other.idleMs < idleConsumerMs) continue;
    // Checked again in the store, atomically: a job delivered to it since the listing keeps it.
    if (await store.streamConsumerRemove(stream, JOBS_GROUP, other.name, { minIdleMs: idleConsumerMs })) {
      removed.push(other.name);
      log.info('job consumer removed from the group: nothing pending, idle', { consumer: other.name, idle_ms: other.idleMs });
    }
  }
  return removed;
}
