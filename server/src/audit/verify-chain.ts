import type { StoredAuditEvent } from './audit-event.ts';
import { eventHash, genesisHash } from './chain-hash.ts';

/** Why a link of the chain is broken. */
export type ChainBreakReason =
  /** The entry is not a JSON event (or not an object). */
  | 'unreadable'
  /** The entry belongs to another tenant's chain. */
  | 'wrong_tenant'
  /** `seq` is not the next number: an event before it was deleted (or one was inserted). */
  | 'seq_mismatch'
  /** `prev_hash` is not the hash of the event before it: that event was edited (or this link was). */
  | 'prev_hash_mismatch'
  /** The event at the anchor's `seq` does not have the anchor's hash, or the chain ends before it. */
  | 'anchor_mismatch';

/** The first broken link of a chain. */
export interface ChainBreak {
  reason: ChainBreakReason;
  /** 0-based position of the entry where the break shows, in stream order; the entry count for a missing anchor. */
  position: number;
  /** The stream id of that entry, when it has one. */
  id?: string;
  /** The `seq` the verifier expected there. */
  expected_seq: number;
  /** The `seq` the entry carries, when it is readable. */
  found_seq?: number;
  /** One line for an operator: what is wrong and which event is suspect. */
  message: string;
}

/** The newest event of a verified chain: record it somewhere else and pass it back as an anchor later. */
export interface ChainHead {
  seq: number;
  id?: string;
  /** base64url SHA-256 of the newest event (what the next event's `prev_hash` will be). */
  hash: string;
}

/** The answer of {@link verifyChain}. */
export interface ChainReport {
  ok: boolean;
  tenant: string;
  /** Entries read (up to and including a break). */
  events: number;
  /** The newest event, when the whole chain verified and is not empty. */
  head: ChainHead | null;
  /** The first broken link, when `ok` is false. */
  broken?: ChainBreak;
}

/**
 * Verifies a tenant's audit chain, oldest event first: each event must carry the next `seq` (0, 1,
 * 2…), its tenant, and as `prev_hash` the hash of the event before it (the tenant's genesis hash
 * for the first). Stops at the first broken link and says where: an edited event shows as a
 * `prev_hash_mismatch` at the event after it; a deleted event as a `seq_mismatch` at the event
 * that follows the gap.
 *
 * A chain proves the order and integrity of what it holds, not that nothing was cut from its end
 * or rewritten from some point on: for that, pass an `anchor` (a head recorded earlier, elsewhere).
 *
 * @param events - parsed events or JSON lines (as `export` writes them), oldest first.
 * @param anchor - a head recorded earlier; its `seq` must be present with its `hash`.
 * @see DESIGN.md guarantee 9
 */
export async function verifyChain(tenant: string, events: AsyncIterable<unknown> | Iterable<unknown>, anchor?: ChainHead): Promise<ChainReport> {
  let expectedPrev = genesisHash(tenant);
  let position = 0;
  let head: ChainHead | null = null;
  const fail = (broken: Omit<ChainBreak, 'position' | 'expected_seq'>): ChainReport => ({
    ok: false,
    tenant,
    events: position + 1,
    head: null,
    broken: { ...broken, position, expected_seq: position },
  });

  for await (const item of events) {
    const event = readEvent(item);
    if (!event) return fail({ reason: 'unreadable', message: `entry ${position} is not an audit event` });
    const at = { ...(typeof event.id === 'string' ? { id: event.id } : {}), found_seq: event.seq };
    if (event.tenant !== tenant) return fail({ ...at, reason: 'wrong_tenant', message: `entry ${position} belongs to tenant ${String(event.tenant)}` });
    if (event.seq !== position) {
      const message = event.seq > position ? `event ${position} is missing: found seq ${event.seq} (deleted)` : `seq ${event.seq} found where ${position} belongs (inserted or reordered)`;
      return fail({ ...at, reason: 'seq_mismatch', message });
    }
    if (event.prev_hash !== expectedPrev) {
      const message = position === 0 ? 'event 0 does not start the tenant’s chain' : `event ${position - 1} was changed: event ${position} holds another hash for it`;
      return fail({ ...at, reason: 'prev_hash_mismatch', message });
    }
    expectedPrev = eventHash(event);
    head = { seq: event.seq, ...(at.id ? { id: at.id } : {}), hash: expectedPrev };
    if (anchor && anchor.seq === event.seq && anchor.hash !== expectedPrev) {
      return fail({ ...at, reason: 'anchor_mismatch', message: `event ${event.seq} differs from the recorded head` });
    }
    position += 1;
  }
  if (anchor && (head === null || head.seq < anchor.seq)) {
    return { ok: false, tenant, events: position, head: null, broken: { reason: 'anchor_mismatch', position, expected_seq: position, message: `the chain ends before the recorded head (seq ${anchor.seq}): events were cut from its end` } };
  }
  return { ok: true, tenant, events: position, head };
}

function readEvent(item: unknown): StoredAuditEvent | null {
  let value = item;
  if (typeof item === 'string') {
    try {
      value = JSON.parse(item);
    } catch {
      return null;
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const event = value as StoredAuditEvent;
  return typeof event.seq === 'number' && typeof event.prev_hash === 'string' ? event : null;
}
