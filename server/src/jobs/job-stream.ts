import { keys, type Store, type StreamEntry } from '../store/index.ts';

/** The consumer group every instance reads the queue (`keys.jobs()`) through. */
export const JOBS_GROUP = 'workers';

/** One consumer's reads of the queue (`keys.jobs()`) through {@link JOBS_GROUP}, from {@link createJobStream}. */
export interface JobStream {
  /** Up to `count` entries never delivered to a consumer, delivered now to this one; the group is created again should it have vanished. */
  readNew(count: number): Promise<StreamEntry[]>;
  /** Takes over stale entries (held by a consumer longer than `minIdleMs`), walking the pending list from where the last walk stopped. */
  claimStale(count: number): Promise<StreamEntry[]>;
}

/**
 * The reads of the queue by `consumer` (XREADGROUP, XAUTOCLAIM). It keeps what they share: whether the
 * group was created in this process, and the cursor of the walk over the pending list.
 * @param options.isRunning - whether this instance runs the entry `id` already (taken back by itself, it is not new).
 */
export function createJobStream(options: { store: Store; consumer: string; minIdleMs: number; isRunning: (id: string) => boolean }): JobStream {
  const { store, consumer, minIdleMs, isRunning } = options;
  const stream = keys.jobs();
  let groupReady: Promise<unknown> | null = null;
  let claimCursor = '0-0';

  /** Creates the group once per process, and again when it has vanished (a Redis that lost its data). */
  function ensureGroup(): Promise<unknown> {
    groupReady ??= store.streamGroupCreate(stream, JOBS_GROUP).catch((error: unknown) => {
      groupReady = null;
      throw error;
    });
    return groupReady;
  }

  async function readNew(count: number): Promise<StreamEntry[]> {
    await ensureGroup();
    const entries = await store.streamGroupRead(stream, JOBS_GROUP, consumer, count);
    if (entries) return entries;
    groupReady = null;
    await ensureGroup();
    return (await store.streamGroupRead(stream, JOBS_GROUP, consumer, count)) ?? [];
  }

  /** Takes over stale entries, walking the pending list from where the last walk stopped. */
  async function claimStale(count: number): Promise<StreamEntry[]> {
    await ensureGroup();
    // Bounded: one call looks at up to 10 × count pending entries; a long list is walked over a few polls.
    for (let step = 0; step < 4; step++) {
      const result = await store.streamClaim(stream, JOBS_GROUP, consumer, { minIdleMs, count, cursor: claimCursor });
      if (!result) {
        groupReady = null;
        return [];
      }
      claimCursor = result.cursor;
      // An entry this instance is still running was claimed back by itself: it is running already.
      const fresh = result.entries.filter((entry) => !isRunning(entry.id));
      if (fresh.length > 0 || claimCursor === '0-0') return fresh;
    }
    return [];
  }

  return { readNew, claimStale };
}
