import { eventHash, genesisHash } from './chain-hash.ts';
import { readAnchorLine, readEvent } from './chain-lines.ts';
import type { ChainBreak, ChainHead, ChainReport, ChainReset, RetentionAnchor } from './chain-report.ts';
import { isResetLink } from './chain-reset.ts';

export type { ChainBreak, ChainBreakReason, ChainHead, ChainReport, ChainReset, RetentionAnchor, RetentionAnchorLine } from './chain-report.ts';

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
      resets.push({
        position,
        ...(at.id ? { id: at.id } : {}),
        seq: event.seq,
        expected_seq: expectedSeq,
        found_seq: foundSeq,
        message: `the chain was reset before event ${event.seq}: an appender found ${found} where it knew event ${event.seq - 1}, and went on from that; events ${expectedSeq} to ${event.seq - 1} that are not here were lost`,
      });
      expectedSeq = event.seq;
      expectedPrev = event.prev_hash;
    }
    if (event.seq !== expectedSeq) {
      const message =
        position === 0 && !start && expectedSeq === 0 && event.seq > 0
          ? `the chain starts at event ${event.seq} with neither a retention anchor nor a chain_reset: its start was cut (or its anchor deleted)`
          : event.seq > expectedSeq
            ? `event ${expectedSeq} is missing: found seq ${event.seq} (deleted)`
            : `seq ${event.seq} found where ${expectedSeq} belongs (inserted or reordered)`;
      return fail({ ...at, reason: 'seq_mismatch', message });
    }
    if (event.prev_hash !== expectedPrev) {
      const message = start && position === 0 ? `event ${expectedSeq} does not continue from the retention anchor (event ${start.seq})` : expectedSeq === 0 ? 'event 0 does not start the tenant’s chain' : `event ${expectedSeq - 1} was changed: event ${expectedSeq} holds another hash for it`;
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
