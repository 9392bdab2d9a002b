import { canonicalize } from '@countersign/shared';
import type { Clock, Logger } from '../runtime/index.ts';
import type { IndexStore, RecordStore, StreamStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import type { AuditEvent, StoredAuditEvent } from './audit-event.ts';
import { createChainAppender } from './chain-appender.ts';
import { createChainReader } from './chain-reader.ts';
import { withoutSecrets } from './no-secrets.ts';
import { trimChain, type TrimReport } from './retention.ts';
import { storedEvent } from './stored-event.ts';
import { verifyChain, type ChainHead, type ChainReport } from './verify-chain.ts';

/** The audit trail: a hash chain per tenant, with a per-request view. */
export interface AuditLog {
  /**
   * Appends an event to its tenant's chain (stamped with the clock's time, the next `seq` and the
   * previous event's hash) and its id to its request's view, in one store call.
   *
   * `options.once`: the event of one transition (`<seq>.<n>` of its request's outbox entry, see
   * `requests/lifecycle.ts`); an event whose token its request's view holds already is not appended
   * again, so an outbox entry delivered twice is audited once. `options.atMs`: when it happened
   * (epoch ms), for an event delivered after the fact; the clock's now by default.
   * @throws TypeError when `detail` names a credential; Error when the store fails.
   */
  record(event: Omit<AuditEvent, 'at'>, options?: { once?: string; atMs?: number }): Promise<void>;
  /**
   * The events of one request, in chain order (GET /api/admin/audit): the chain entries its view
   * names, read by id (two round trips, whatever the chain's length).
   */
  forRequest(tenant: string, authReqId: string): Promise<StoredAuditEvent[]>;
  /**
   * The tenant's `policy_changed` events, in chain order (GET /api/admin/audit?type=policy_changed):
   * read through their own view, as {@link AuditLog.forRequest} reads a request's.
   */
  policyChanges(tenant: string): Promise<StoredAuditEvent[]>;
  /**
   * The tenant's whole chain, oldest first, as JSON lines: each the JCS of one event with its stream
   * `id`; read in pages. A chain the retention trimmed starts with one line
   * `{"retention_anchor": {seq, hash, id, at}}`, the last event trimmed, which `verify --file` reads.
   */
  export(tenant: string): AsyncIterable<string>;
  /** Verifies the tenant's chain as stored, from its retention anchor when it was trimmed; see {@link verifyChain}. */
  verify(tenant: string, anchor?: ChainHead): Promise<ChainReport>;
  /**
   * Registers a tenant for the retention (`keys.auditTenants`): done when an operator creates a
   * client or user, and by the first `record` of each tenant in a process, so chains from before
   * the registry are found too. Answers once the tenant is in the registry.
   */
  track(tenant: string): Promise<void>;
  /**
   * Applies the retention to every registered tenant: trims the events older than `maxAgeSeconds`
   * ({@link trimChain}), keeping each chain's head before the trim as its anchor. Does nothing
   * without a maximum age. Run by the expiry sweeper (under its lease).
   */
  trim(): Promise<TrimReport[]>;
}

/** Options of {@link createAuditLog}. */
export interface AuditLogOptions {
  /** The audit retention (`AUDIT_RETENTION_DAYS`), seconds: events older than this are trimmed by {@link AuditLog.trim}. */
  maxAgeSeconds?: number;
  /** Where a chain found reset is reported (an error: the store lost audit events). */
  log?: Logger;
}

/** How long the view of a tenant's policy changes lives after its last change when the audit has no maximum age: 100 years. */
const POLICY_INDEX_TTL = 36_500 * 86_400;

/**
 * An audit log on the store (docs/design.md guarantee 9; docs/audit.md, its "Retention" too). Each
 * tenant has one hash chain in a stream (`keys.auditChain`, a Redis Stream on Redis, kept without
 * TTL): every event carries `seq` and `prev_hash`, the base64url SHA-256 of the JCS of the event
 * before it, so an edited or a deleted event breaks the chain at the next link (see
 * `createChainAppender` for why several instances appending at once never fork it). The chain is
 * the only copy of an event, stored compactly and rebuilt whole before it is hashed
 * (`stored-event.ts`): the per-request view operators read is a string of stream ids
 * (`keys.requestAuditIndex`, kept `retentionSeconds`), appended by the same script call that
 * appends the events, so it never names an event the chain lacks and costs no round trip of its
 * own.
 *
 * With a maximum age, {@link AuditLog.trim} trims each chain's oldest events and keeps the head
 * before them as the chain's anchor (`retention.ts`), and a view is kept no longer than that age,
 * so it cannot name trimmed events for longer than its own TTL (the admin view leaves out ids
 * whose event is gone).
 *
 * @param retentionSeconds - how long a request's view is kept (at most `options.maxAgeSeconds`).
 */
export function createAuditLog(store: StreamStore & IndexStore & Pick<RecordStore, 'hashGet'>, clock: Clock, retentionSeconds: number, options: AuditLogOptions = {}): AuditLog {
  const indexTtl = Math.min(retentionSeconds, options.maxAgeSeconds ?? Number.POSITIVE_INFINITY);
  const append = createChainAppender(store, {
    indexOf: (event) => {
      if (event.auth_req_id) return { key: keys.requestAuditIndex(event.tenant, event.auth_req_id), ttlSeconds: indexTtl };
      // A tenant's policy changes are few and read together: their own view, kept as long as the chain keeps them.
      if (event.type === 'policy_changed') return { key: keys.policyAuditIndex(event.tenant), ttlSeconds: options.maxAgeSeconds ?? POLICY_INDEX_TTL };
      return null;
    },
    onReset: ({ tenant, lost, found }) => {
      options.log?.error('audit chain reset: the store lost events under it; continuing from the head this instance knew, behind a chain_reset event', { tenant, lost_seq: lost.seq, lost_id: lost.id, found_seq: found?.seq ?? null, found_id: found?.id ?? null });
      // The store lost the tenant registry with the chain: register again, or the retention never finds it.
      tracked.delete(tenant);
      track(tenant).catch(() => {});
    },
  });
  /** Per tenant, its registration (done or in flight); a failed one is forgotten, so the next record tries again. */
  const tracked = new Map<string, Promise<void>>();
  const track = (tenant: string): Promise<void> => {
    let registered = tracked.get(tenant);
    if (!registered) {
      registered = store.setAdd(keys.auditTenants(), tenant).catch((error: unknown) => {
        tracked.delete(tenant);
        throw error;
      });
      tracked.set(tenant, registered);
    }
    return registered;
  };
  const { anchorLine, viewed, entries } = createChainReader(store);

  return {
    async record(input, options = {}) {
      // Resolves once the event is in the chain and its id in its request's view (one script call);
      // the tenant's registration for the retention goes beside it, once per process.
      const at = new Date(options.atMs ?? clock.now()).toISOString();
      await Promise.all([append(withoutSecrets({ ...input, at }), options.once), track(input.tenant)]);
    },
    forRequest: (tenant, authReqId) => viewed(tenant, keys.requestAuditIndex(tenant, authReqId)),
    policyChanges: (tenant) => viewed(tenant, keys.policyAuditIndex(tenant)),
    async *export(tenant) {
      const trimmed = await anchorLine(tenant);
      if (trimmed) yield canonicalize(trimmed);
      for await (const entry of entries(tenant)) {
        // An unreadable entry is exported as it is, so the verifier of the export sees it too.
        yield canonicalize(storedEvent(entry, tenant) ?? { id: entry.id, unreadable: entry.fields });
      }
    },
    async verify(tenant, anchor) {
      for (let attempt = 1; ; attempt++) {
        const trimmed = await anchorLine(tenant);
        async function* events() {
          if (trimmed) yield trimmed;
          for await (const entry of entries(tenant)) yield storedEvent(entry, tenant) ?? entry;
        }
        const report = await verifyChain(tenant, events(), anchor);
        // A trim between reading the anchor and the chain shows as a gap at the first entry: when the
        // anchor moved meanwhile, verify again from the new one; otherwise the gap is real.
        if (report.ok || attempt === 3 || report.broken?.reason !== 'seq_mismatch' || report.broken.position !== 0) return report;
        if (canonicalize(await anchorLine(tenant)) === canonicalize(trimmed)) return report;
      }
    },
    track,
    async trim() {
      if (options.maxAgeSeconds === undefined) return [];
      const cutoff = clock.now() - options.maxAgeSeconds * 1000;
      const reports: TrimReport[] = [];
      // One tenant after another: a run's cost is the events it trims, plus two reads per tenant.
      for (const tenant of (await store.setMembers(keys.auditTenants())).sort()) reports.push(await trimChain(store, tenant, cutoff));
      return reports;
    },
  };
}
