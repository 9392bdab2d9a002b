import { canonicalize } from '@countersign/shared';
import type { Clock } from '../runtime/index.ts';
import type { Store, StreamEntry } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { AuditEvent, StoredAuditEvent } from './audit-event.ts';
import { createChainAppender } from './chain-appender.ts';
import { withoutSecrets } from './no-secrets.ts';
import { storedEvent } from './stored-event.ts';
import { verifyChain, type ChainHead, type ChainReport } from './verify-chain.ts';

/** The audit trail: a hash chain per tenant, with a per-request view. */
export interface AuditLog {
  /**
   * Appends an event to its tenant's chain (stamped with the clock's time, the next `seq` and the
   * previous event's hash) and its id to its request's view, in one store call.
   * @throws TypeError when `detail` names a credential; Error when the store fails.
   */
  record(event: Omit<AuditEvent, 'at'>): Promise<void>;
  /**
   * The events of one request, in chain order (GET /api/admin/audit): the chain entries its view
   * names, read by id (two round trips, whatever the chain's length).
   */
  forRequest(tenant: string, authReqId: string): Promise<StoredAuditEvent[]>;
  /** The tenant's whole chain, oldest first, as JSON lines: each the JCS of one event with its stream `id`; read in pages. */
  export(tenant: string): AsyncIterable<string>;
  /** Verifies the tenant's chain as stored; see {@link verifyChain}. */
  verify(tenant: string, anchor?: ChainHead): Promise<ChainReport>;
}

/** Entries read per store call when exporting or verifying. */
const PAGE = 500;

/**
 * An audit log on the store (DESIGN.md guarantee 9; issue 4 "Audit trail"). Each tenant has one
 * hash chain in a stream (`keys.auditChain`, a Redis Stream on Redis, kept without TTL): every
 * event carries `seq` and `prev_hash`, the base64url SHA-256 of the JCS of the event before it, so
 * an edited or a deleted event breaks the chain at the next link (see `createChainAppender` for
 * why several instances appending at once never fork it). The chain is the only copy of an event,
 * stored compactly and rebuilt whole before it is hashed (`stored-event.ts`): the per-request view
 * operators read is a string of stream ids (`keys.requestAuditIndex`, kept
 * `retentionSeconds`), appended by the same script call that appends the events, so it never names
 * an event the chain lacks and costs no round trip of its own.
 *
 * @param retentionSeconds - how long a request's view is kept.
 */
export function createAuditLog(store: Store, clock: Clock, retentionSeconds: number): AuditLog {
  const append = createChainAppender(store, {
    indexOf: (event) => (event.auth_req_id ? { key: keys.requestAuditIndex(event.tenant, event.auth_req_id), ttlSeconds: retentionSeconds } : null),
  });

  async function* entries(tenant: string): AsyncGenerator<StreamEntry> {
    let after: string | undefined;
    for (;;) {
      const page = await store.streamRange(keys.auditChain(tenant), after, PAGE);
      yield* page;
      if (page.length < PAGE) return;
      after = page.at(-1)!.id;
    }
  }

  return {
    async record(input) {
      // Resolves once the event is in the chain and its id in its request's view (one script call).
      await append(withoutSecrets({ ...input, at: new Date(clock.now()).toISOString() }));
    },
    async forRequest(tenant, authReqId) {
      const ids = await store.streamIndexRead(keys.requestAuditIndex(tenant, authReqId));
      if (ids.length === 0) return [];
      // An id whose entry is gone or unreadable is left out here; `verify` reports the chain itself.
      const events = (await store.streamGet(keys.auditChain(tenant), ids)).flatMap((entry) => {
        const event = entry && storedEvent(entry, tenant);
        return event ? [event] : [];
      });
      // The index is appended in chain order; sorting by `seq` keeps that promise whatever happens to it.
      return events.sort((a, b) => a.seq - b.seq);
    },
    async *export(tenant) {
      for await (const entry of entries(tenant)) {
        // An unreadable entry is exported as it is, so the verifier of the export sees it too.
        yield canonicalize(storedEvent(entry, tenant) ?? { id: entry.id, unreadable: entry.fields });
      }
    },
    async verify(tenant, anchor) {
      async function* events() {
        for await (const entry of entries(tenant)) yield storedEvent(entry, tenant) ?? entry;
      }
      return verifyChain(tenant, events(), anchor);
    },
  };
}
