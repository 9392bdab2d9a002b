import type { Store, StreamEntry } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { AuditEvent, ChainedAuditEvent, StoredAuditEvent } from './audit-event.ts';
import { chainText, eventHash, genesisHash } from './chain-hash.ts';

/** The newest event of a chain as this process last saw it. */
interface Head {
  id: string | null;
  seq: number;
  hash: string;
}

/** Each lost race means another writer appended, so the chain moves on; this only bounds a broken store. */
const MAX_ATTEMPTS = 100;

/** The chained event a stream entry holds, with its id, or null when it is not one. */
export function storedEvent(entry: StreamEntry): StoredAuditEvent | null {
  try {
    const event = JSON.parse(entry.fields.event ?? '') as ChainedAuditEvent;
    return typeof event === 'object' && event !== null && typeof event.seq === 'number' ? { ...event, id: entry.id } : null;
  } catch {
    return null;
  }
}

/** Appends events to their tenant's hash chain; made by {@link createChainAppender}. */
export type ChainAppender = (event: AuditEvent) => Promise<StoredAuditEvent>;

/**
 * Appends events to the tenants' hash chains (`keys.auditChain`) so that a chain never forks, however
 * many server instances append at once.
 *
 * The hash is computed here, in TypeScript (SHA-256 over JCS, the same code for both stores and the
 * verifier); the store only offers `streamAppendAfter(key, lastId, entry)`, one Lua script that
 * appends only while the stream's newest entry is still `lastId` and otherwise answers that newest
 * entry. Two instances that both built on entry N race; exactly one appends N+1, the other gets
 * N+1 back, links to it and retries. The loop is lock-free (every lost race is someone else's
 * progress) and costs one round trip per attempt: this appender remembers each tenant's head and
 * runs its own appends one after another per tenant, so only other instances ever make it retry.
 *
 * Hashing in Lua was the alternative: Redis's Lua has only `redis.sha1hex`, SHA-1 has known
 * collisions (SHAttered, 2017; chosen-prefix, 2020) while events carry client-chosen text (an
 * outcome's `reference`), and Lua would have to reproduce JCS.
 *
 * @throws Error when the newest entry of a chain is unreadable: linking to it would seal whatever
 *   was done to it, so the audit (and with it the gate) fails closed until an operator looks.
 * @see DESIGN.md guarantee 9; RFC 8785 (JCS)
 */
export function createChainAppender(store: Store): ChainAppender {
  const heads = new Map<string, Head>();
  const queues = new Map<string, Promise<unknown>>();
  const genesis = (tenant: string): Head => ({ id: null, seq: -1, hash: genesisHash(tenant) });

  async function append(event: AuditEvent): Promise<StoredAuditEvent> {
    const key = keys.auditChain(event.tenant);
    // Optimistic: a first append guesses an empty chain; a wrong guess costs one round trip and returns the real head.
    let head = heads.get(event.tenant) ?? genesis(event.tenant);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const chained: ChainedAuditEvent = { ...event, seq: head.seq + 1, prev_hash: head.hash };
      const result = await store.streamAppendAfter(key, head.id, { event: chainText(chained) });
      if (result.ok) {
        heads.set(event.tenant, { id: result.id, seq: chained.seq, hash: eventHash(chained) });
        return { ...chained, id: result.id };
      }
      if (!result.last) {
        head = genesis(event.tenant);
        continue;
      }
      const newest = storedEvent(result.last);
      if (!newest) throw new Error(`the audit chain of tenant ${event.tenant} ends in an unreadable entry ${result.last.id}`);
      head = { id: result.last.id, seq: newest.seq, hash: eventHash(newest) };
    }
    throw new Error(`could not append to the audit chain of tenant ${event.tenant} after ${MAX_ATTEMPTS} attempts`);
  }

  return (event) => {
    // One append at a time per tenant in this process, in call order.
    const previous = queues.get(event.tenant) ?? Promise.resolve();
    const next = previous.then(() => append(event));
    const settled = next.then(
      () => undefined,
      () => undefined,
    );
    queues.set(event.tenant, settled);
    void settled.then(() => {
      if (queues.get(event.tenant) === settled) queues.delete(event.tenant);
    });
    return next;
  };
}
