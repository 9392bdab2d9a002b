import type { IndexStore, RecordStore, StreamEntry, StreamStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { StoredAuditEvent } from './audit-event.ts';
import { readRetentionAnchor } from './retention.ts';
import { storedEvent } from './stored-event.ts';
import type { RetentionAnchorLine } from './verify-chain.ts';

/** Entries read per store call when exporting or verifying. */
const PAGE = 500;

/**
 * The reads of a tenant's audit chain (`keys.auditChain`) that `createAuditLog` (`audit-log.ts`) serves from:
 * its entries in pages, its retention anchor, and the events a view names. Kept apart from the log
 * itself, which appends, registers and trims.
 */
export interface ChainReader {
  /** The tenant's chain entries, oldest first, read `PAGE` (500) at a time (`Store.streamRange`). */
  entries(tenant: string): AsyncGenerator<StreamEntry>;
  /**
   * The tenant's retention anchor (`keys.auditAnchor`) as the `{"retention_anchor": …}` line an
   * export starts with, or `null` when the chain was never trimmed.
   */
  anchorLine(tenant: string): Promise<RetentionAnchorLine | null>;
  /**
   * The events a view (a string of stream ids, see `Store.streamIndexRead`) names, in `seq` order,
   * read by id (two round trips, whatever the chain's length); ids whose entry is gone or
   * unreadable are left out.
   */
  viewed(tenant: string, indexKey: string): Promise<StoredAuditEvent[]>;
}

/** A {@link ChainReader} on the store. @throws Error (from each read) when the store fails. */
export function createChainReader(store: StreamStore & IndexStore & Pick<RecordStore, 'hashGet'>): ChainReader {
  return {
    async anchorLine(tenant) {
      const anchor = readRetentionAnchor(await store.hashGet(keys.auditAnchor(tenant)));
      return anchor ? { retention_anchor: anchor } : null;
    },
    async viewed(tenant, indexKey) {
      const ids = await store.streamIndexRead(indexKey);
      if (ids.length === 0) return [];
      // An id whose entry is gone or unreadable is left out here; `verify` reports the chain itself.
      const events = (await store.streamGet(keys.auditChain(tenant), ids)).flatMap((entry) => {
        const event = entry && storedEvent(entry, tenant);
        return event ? [event] : [];
      });
      // The index is appended in chain order; sorting by `seq` keeps that promise whatever happens to it.
      return events.sort((a, b) => a.seq - b.seq);
    },
    async *entries(tenant) {
      let after: string | undefined;
      for (;;) {
        const page = await store.streamRange(keys.auditChain(tenant), after, PAGE);
        yield* page;
        if (page.length < PAGE) return;
        after = page.at(-1)!.id;
      }
    },
  };
}
