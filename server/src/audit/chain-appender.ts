import type { Fields, StreamIndex, StreamStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { AuditEvent, ChainedAuditEvent, StoredAuditEvent } from './audit-event.ts';
import { chainText, eventHash, genesisHash, sha256Text } from './chain-hash.ts';
import { chainResetEvent, isChainReset, type KnownHead } from './chain-reset.ts';
import { storedEvent, storedFields } from './stored-event.ts';

/** The newest event of a chain as this process last saw it. */
type Head = KnownHead;

/** Each lost race means another writer appended, so the chain moves on; this only bounds a broken store. */
const MAX_ATTEMPTS = 100;

/**
 * Appends events to their tenant's hash chain; made by {@link createChainAppender}. With `once`, the
 * event is appended at most once: when its index holds the token already (the same transition's
 * event, delivered twice), nothing is appended and the promise resolves null.
 */
export type ChainAppender = (event: AuditEvent, once?: string) => Promise<StoredAuditEvent | null>;

/** Options of {@link createChainAppender}. */
export interface ChainAppenderOptions {
  /**
   * The index that receives an event's stream id in the same script call that appends it (the
   * per-request view), or none. Its key must be in the chain key's hash tag, `{<tenant>}`.
   */
  indexOf?: (event: AuditEvent) => StreamIndex | null | undefined;
  /**
   * Runs for each event once its batch is in the chain, all of a batch at once; an event's promise
   * settles only after its own call did, and rejects with its error. A second round trip: what must
   * land with the event belongs in `indexOf`.
   */
  afterAppend?: (event: StoredAuditEvent) => Promise<void>;
  /**
   * Told when a chain is found reset (its stream empty, or ending before the head this appender
   * remembers): the appender then continues from that head behind a `chain_reset` event
   * (`chain-reset.ts`). The audit log logs it as an error.
   */
  onReset?: (reset: { tenant: string; lost: KnownHead; found: { id: string; seq: number } | null }) => void;
}

/** The most events one script call appends; more wait for the next batch. */
export const MAX_BATCH = 256;

/** An event waiting for its batch, with its caller's promise. */
interface Waiting {
  event: AuditEvent;
  once: string | undefined;
  resolve: (stored: StoredAuditEvent | null) => void;
  reject: (error: unknown) => void;
}

/**
 * Appends events to the tenants' hash chains (`keys.auditChain`) so that a chain never forks, however
 * many server instances append at once.
 *
 * The hash is computed here, in TypeScript (SHA-256 over JCS, the same code for both stores and the
 * verifier); the store only offers `streamAppendManyAfter(key, lastId, entries)`, one Lua script that
 * appends a batch only while the stream's newest entry is still `lastId` and otherwise answers that
 * newest entry. Two instances that both built on entry N race; exactly one appends after N, the
 * other gets the new tail back, re-links its whole batch to it and retries. The loop is lock-free
 * (every lost race is someone else's progress) and costs one round trip per attempt: this appender
 * remembers each tenant's head and runs its own appends one batch after another per tenant, so only
 * other instances ever make it retry.
 *
 * Group commit: while a tenant's batch is in flight, the events that arrive wait; when it lands,
 * all of them (up to {@link MAX_BATCH}) are chained locally, in call order, and appended in one
 * script call. Each caller's promise resolves when its own event is stored (and its `afterAppend`
 * ran), and rejects when its batch could not be stored.
 *
 * Hashing in Lua was the alternative: Redis's Lua has only `redis.sha1hex`, SHA-1 has known
 * collisions (SHAttered, 2017; chosen-prefix, 2020) while events carry client-chosen text (an
 * outcome's `reference`), and Lua would have to reproduce JCS.
 *
 * @throws Error when the newest entry of a chain is unreadable: linking to it would seal whatever
 *   was done to it, so the audit (and with it the gate) fails closed until an operator looks.
 * @see docs/design.md guarantee 9; RFC 8785 (JCS)
 */
export function createChainAppender(store: StreamStore, options: ChainAppenderOptions = {}): ChainAppender {
  const heads = new Map<string, Head>();
  /** Per tenant, the events waiting for the next batch; a tenant is here while its batches run. */
  const waiting = new Map<string, Waiting[]>();
  const genesis = (tenant: string): Head => ({ id: null, seq: -1, hash: genesisHash(tenant) });

  /**
   * Chains `batch` (one tenant's events, in order) onto the tenant's head and appends them in one
   * script call; retries on a lost race, and without an event its index already holds (`once`).
   * Answers, per event, its stored form or null for one that was in the chain already.
   */
  async function appendBatch(tenant: string, batch: readonly { event: AuditEvent; once: string | undefined }[]): Promise<(StoredAuditEvent | null)[]> {
    const key = keys.auditChain(tenant);
    // Optimistic: a first append guesses an empty chain; a wrong guess costs one round trip and returns the real head.
    let head = heads.get(tenant) ?? genesis(tenant);
    const stored: (StoredAuditEvent | null)[] = batch.map(() => null);
    /** Positions in `batch` still to append. */
    let left = batch.map((_, i) => i);
    const indexes = batch.map(({ event, once }) => {
      const index = options.indexOf?.(event);
      return index && once !== undefined ? { ...index, once } : index;
    });
    /** The `chain_reset` event that leads the batch while this appender continues a chain it found reset. */
    let reset: AuditEvent | null = null;
    // Only lost races count: dropping an event the chain holds already is progress (`left` shrinks),
    // and a batch delivered again by the outbox may hold up to MAX_BATCH of them.
    for (let races = 0; races < MAX_ATTEMPTS && left.length > 0; ) {
      const events = [...(reset ? [reset] : []), ...left.map((i) => batch[i]!.event)];
      const sentIndexes = options.indexOf ? [...(reset ? [null] : []), ...left.map((i) => indexes[i])] : undefined;
      const chained: ChainedAuditEvent[] = [];
      const entries: Fields[] = [];
      let link = head;
      for (const event of events) {
        const next: ChainedAuditEvent = { ...event, seq: link.seq + 1, prev_hash: link.hash };
        // Hashed as its full JCS text; stored in the compact form that rebuilds exactly that text.
        const text = chainText(next);
        chained.push(next);
        entries.push(storedFields(next, tenant, text));
        link = { id: null, seq: next.seq, hash: sha256Text(text) };
      }
      const result = await store.streamAppendManyAfter(key, head.id, entries, sentIndexes);
      const offset = reset ? 1 : 0;
      if (result.ok) {
        heads.set(tenant, { id: result.ids.at(-1)!, seq: link.seq, hash: link.hash });
        left.forEach((i, n) => {
          stored[i] = { ...chained[n + offset]!, id: result.ids[n + offset]! };
        });
        return stored;
      }
      if ('duplicate' in result) {
        // In the chain already (delivered before, or twice in this batch): the rest is linked again without it.
        left = left.filter((_, n) => n + offset !== result.duplicate);
        continue;
      }
      const newest = result.last ? storedEvent(result.last, tenant) : null;
      if (result.last && !newest) throw new Error(`the audit chain of tenant ${tenant} ends in an unreadable entry ${result.last.id}`);
      const found = result.last && newest ? { id: result.last.id, seq: newest.seq } : null;
      // Data lost under the chain (a Redis restarted empty or from an older snapshot): keep the head
      // this process knows and say what was lost, rather than start again at genesis unnoticed.
      if (isChainReset(head, found)) {
        races += 1;
        options.onReset?.({ tenant, lost: head, found });
        reset = chainResetEvent(tenant, head, found, batch[left[0]!]!.event.at);
        head = { ...head, id: found?.id ?? null };
        continue;
      }
      // Another writer appended (or already recorded the reset): link to its head.
      races += 1;
      reset = null;
      head = result.last && newest ? { id: result.last.id, seq: newest.seq, hash: eventHash(newest) } : genesis(tenant);
    }
    if (left.length === 0) return stored;
    throw new Error(`could not append to the audit chain of tenant ${tenant} after ${MAX_ATTEMPTS} attempts`);
  }

  /** Settles a stored batch's callers, each after its own `afterAppend`. */
  async function settle(batch: Waiting[], stored: (StoredAuditEvent | null)[]): Promise<void> {
    const after = options.afterAppend;
    const results = after ? await Promise.allSettled(stored.map((event) => (event ? after(event) : undefined))) : [];
    batch.forEach((item, i) => {
      const result = results[i];
      if (result?.status === 'rejected') item.reject(result.reason);
      else item.resolve(stored[i]!);
    });
  }

  /** Appends a tenant's waiting events, batch after batch, until none wait. */
  async function drain(tenant: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      let stored: (StoredAuditEvent | null)[];
      try {
        stored = await appendBatch(tenant, batch);
      } catch (error) {
        for (const item of batch) item.reject(error);
        continue;
      }
      // The next batch may start while this one's list appends run: the chain head has moved already.
      void settle(batch, stored);
    }
    waiting.delete(tenant);
  }

  return (event, once) =>
    new Promise<StoredAuditEvent | null>((resolve, reject) => {
      const queue = waiting.get(event.tenant);
      if (queue) {
        queue.push({ event, once, resolve, reject });
        return;
      }
      const fresh: Waiting[] = [{ event, once, resolve, reject }];
      waiting.set(event.tenant, fresh);
      // Started a microtask later, so the events of one synchronous burst share the first batch.
      queueMicrotask(() => void drain(event.tenant, fresh));
    });
}
