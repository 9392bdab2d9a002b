import type { StoredAuditEvent } from './audit-event.ts';
import { eventHash, genesisHash } from './chain-hash.ts';
import { isResetLink } from './chain-reset.ts';

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
  | 'anchor_mismatch'
  /** The anchor's `seq` is older than what the retention kept: it cannot be checked any more. */
  | 'anchor_trimmed'
  /**
   * Every link holds, but the chain was reset: its stream lost events (a Redis that came back
   * empty), and an appender continued from the head it remembered behind a `chain_reset` event.
   * The events lost cannot be checked; see {@link ChainReport.resets}.
   */
  | 'chain_reset';

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

/**
 * Where a chain that the audit retention trimmed starts: the last event trimmed, its `seq`, its hash
 * (what the first event kept holds as `prev_hash`), stream id and time. Kept in the store beside the
 * chain (`keys.auditAnchor`), and written as the first line of an export of a trimmed chain.
 */
export interface RetentionAnchor {
  seq: number;
  hash: string;
  id?: string;
  at?: string;
}

/** One `chain_reset` link of a chain: where the stream lost events and the chain went on. */
export interface ChainReset {
  /** 0-based position of the `chain_reset` event, in stream order. */
  position: number;
  id?: string;
  /** The `seq` of the `chain_reset` event; the head that was lost is `seq` − 1. */
  seq: number;
  /** The `seq` the verifier expected there: the events from it to `seq` − 1 are not in the chain. */
  expected_seq: number;
  /** What the appender found when it noticed: the stream's newest `seq`, or -1 for an empty stream. */
  found_seq: number;
  message: string;
}

/** The answer of {@link verifyChain}. */
export interface ChainReport {
  ok: boolean;
  tenant: string;
  /** Entries read (up to and including a break). */
  events: number;
  /** The newest event, when the whole chain verified and is not empty. */
  head: ChainHead | null;
  /** Present when the chain was trimmed: verification began after this event instead of at the genesis hash. */
  start?: RetentionAnchor;
  /** The first broken link, when `ok` is false; `chain_reset` when the only finding is a reset. */
  broken?: ChainBreak;
  /** The resets found (also when a broken link follows one): a chain with any is never `ok`. */
  resets?: ChainReset[];
}

/** The first line of an export of a trimmed chain, `{"retention_anchor": {…}}`, read back by {@link verifyChain}. */
export interface RetentionAnchorLine {
  retention_anchor: RetentionAnchor;
}

const HASH = /^[A-Za-z0-9_-]{43}$/;

/** An item of an export as a value: a JSON line parsed (undefined when it is not JSON), anything else as it is. */
function parsedLine(item: unknown): unknown {
  if (typeof item !== 'string') return item;
  try {
    return JSON.parse(item);
  } catch {
    return undefined;
  }
}

/** The retention anchor a first line or first item names, or null when it is not one. */
function readAnchorLine(item: unknown): RetentionAnchor | null {
  const value = parsedLine(item);
  if (typeof value !== 'object' || value === null || !('retention_anchor' in value)) return null;
  const anchor = (value as RetentionAnchorLine).retention_anchor;
  if (typeof anchor !== 'object' || anchor === null || !Number.isSafeInteger(anchor.seq) || anchor.seq < 0 || typeof anchor.hash !== 'string' || !HASH.test(anchor.hash)) return null;
  return anchor;
}

/**
 * Verifies a tenant's audit chain, oldest event first: each event must carry the next `seq` (0, 1,
 * 2…), its tenant, and as `prev_hash` the hash of the event before it (the tenant's genesis hash
 * for the first). Stops at the first broken link and says where: an edited event shows as a
 * `prev_hash_mismatch` at the event after it; a deleted event as a `seq_mismatch` at the event
 * that follows the gap.
 *
 * A chain the audit retention trimmed starts with its {@link RetentionAnchor} (as the first item,
 * `{"retention_anchor": …}`): the first event must then carry the anchor's `seq` + 1 and its hash as
 * `prev_hash`, so a trim that removed more than the anchor says, or an event deleted right after
 * it, is a `seq_mismatch` as anywhere else. The report names the anchor in `start`.
 *
 * A chain proves the order and integrity of what it holds, not that nothing was cut from its end
 * or rewritten from some point on (nor that a trim and its anchor were honest): for that, pass an
 * `anchor` (a head recorded earlier, elsewhere). One older than the retention anchor can no longer
 * be checked (`anchor_trimmed`).
 *
 * @param events - parsed events or JSON lines (as `export` writes them), oldest first.
 * @param anchor - a head recorded earlier; its `seq` must be present with its `hash`.
 * @see docs/design.md guarantee 9; docs/audit.md "Retention"
 */
export async function verifyChain(tenant: string, events: AsyncIterable<unknown> | Iterable<unknown>, anchor?: ChainHead): Promise<ChainReport> {
  let expectedPrev = genesisHash(tenant);
  let expectedSeq = 0;
  let start: RetentionAnchor | undefined;
  let position = 0;
  let head: ChainHead | null = null;
  const resets: ChainReset[] = [];
  const report = (fields: Omit<ChainReport, 'tenant' | 'start'>): ChainReport => ({ ...fields, tenant, ...(start ? { start } : {}), ...(resets.length > 0 ? { resets } : {}) });
  const fail = (broken: Omit<ChainBreak, 'position' | 'expected_seq'>): ChainReport => report({ ok: false, events: position + 1, head: null, broken: { ...broken, position, expected_seq: expectedSeq } });

  let first = true;
  for await (const item of events) {
    if (first) {
      first = false;
      const trimmed = readAnchorLine(item);
      if (trimmed) {
        start = trimmed;
        expectedPrev = trimmed.hash;
        expectedSeq = trimmed.seq + 1;
        if (anchor && anchor.seq < trimmed.seq) {
          return report({ ok: false, events: 0, head: null, broken: { reason: 'anchor_trimmed', position: 0, expected_seq: expectedSeq, message: `the recorded head (seq ${anchor.seq}) is older than the retention anchor (seq ${trimmed.seq}): it was trimmed, record a newer one` } });
        }
        if (anchor && anchor.seq === trimmed.seq && anchor.hash !== trimmed.hash) {
          return report({ ok: false, events: 0, head: null, broken: { reason: 'anchor_mismatch', position: 0, expected_seq: expectedSeq, message: `event ${anchor.seq} differs from the recorded head (it is the retention anchor)` } });
        }
        continue;
      }
    }
    const event = readEvent(item);
    if (!event) return fail({ reason: 'unreadable', message: `entry ${position} is not an audit event` });
    const at = { ...(typeof event.id === 'string' ? { id: event.id } : {}), found_seq: event.seq };
    if (event.tenant !== tenant) return fail({ ...at, reason: 'wrong_tenant', message: `entry ${position} belongs to tenant ${String(event.tenant)}` });
    // A reset link that does not continue the chain: the stream lost what lay between. Checked from
    // here on, as from an anchor, and reported; the chain is never said to hold.
    if ((event.seq !== expectedSeq || event.prev_hash !== expectedPrev) && isResetLink(event)) {
      const foundSeq = typeof event.detail?.found_seq === 'number' ? event.detail.found_seq : -1;
      const found = foundSeq < 0 ? 'the stream empty' : `its newest event at seq ${foundSeq}`;
      resets.push({ position, ...(at.id ? { id: at.id } : {}), seq: event.seq, expected_seq: expectedSeq, found_seq: foundSeq, message: `the chain was reset before event ${event.seq}: an appender found ${found} where it knew event ${event.seq - 1}, and went on from that; events ${expectedSeq} to ${event.seq - 1} that are not here were lost` });
      expectedSeq = event.seq;
      expectedPrev = event.prev_hash;
    }
    if (event.seq !== expectedSeq) {
      const message = position === 0 && !start && expectedSeq === 0 && event.seq > 0
        ? `the chain starts at event ${event.seq} with neither a retention anchor nor a chain_reset: its start was cut (or its anchor deleted)`
        : event.seq > expectedSeq ? `event ${expectedSeq} is missing: found seq ${event.seq} (deleted)` : `seq ${event.seq} found where ${expectedSeq} belongs (inserted or reordered)`;
      return fail({ ...at, reason: 'seq_mismatch', message });
    }
    if (event.prev_hash !== expectedPrev) {
      const message = start && position === 0
        ? `event ${expectedSeq} does not continue from the retention anchor (event ${start.seq})`
        : expectedSeq === 0 ? 'event 0 does not start the tenant’s chain' : `event ${expectedSeq - 1} was changed: event ${expectedSeq} holds another hash for it`;
      return fail({ ...at, reason: 'prev_hash_mismatch', message });
    }
    expectedPrev = eventHash(event);
    head = { seq: event.seq, ...(at.id ? { id: at.id } : {}), hash: expectedPrev };
    if (anchor && anchor.seq === event.seq && anchor.hash !== expectedPrev) {
      return fail({ ...at, reason: 'anchor_mismatch', message: `event ${event.seq} differs from the recorded head` });
    }
    position += 1;
    expectedSeq += 1;
  }
  if (anchor && (head === null || head.seq < anchor.seq) && !(start && anchor.seq === start.seq)) {
    return report({ ok: false, events: position, head: null, broken: { reason: 'anchor_mismatch', position, expected_seq: expectedSeq, message: `the chain ends before the recorded head (seq ${anchor.seq}): events were cut from its end` } });
  }
  const reset = resets[0];
  if (reset) {
    return report({ ok: false, events: position, head, broken: { reason: 'chain_reset', position: reset.position, ...(reset.id ? { id: reset.id } : {}), expected_seq: reset.expected_seq, found_seq: reset.seq, message: resets.length === 1 ? reset.message : `${reset.message} (and ${resets.length - 1} more resets)` } });
  }
  return report({ ok: true, events: position, head });
}

function readEvent(item: unknown): StoredAuditEvent | null {
  const value = parsedLine(item);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const event = value as StoredAuditEvent;
  return typeof event.seq === 'number' && typeof event.prev_hash === 'string' ? event : null;
}
