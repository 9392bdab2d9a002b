import type { Fields, RecordStore, StreamStore } from '../store/index.ts';
import { keys } from '../store/index.ts';
import { eventHash, genesisHash } from './chain-hash.ts';
import { isResetLink } from './chain-reset.ts';
import { storedEvent } from './stored-event.ts';
import type { RetentionAnchor } from './verify-chain.ts';

/** Entries read per page when trimming. */
const PAGE = 500;
/** Pages trimmed per tenant per run at most, so one run stays short; the rest waits for the next run. */
const MAX_PAGES = 20;

/** What one trim of one tenant's chain did. */
export interface TrimReport {
  tenant: string;
  /** Events deleted from the chain. */
  trimmed: number;
  /** The retention anchor after the trim (the last event trimmed, ever), or null when nothing was ever trimmed. */
  anchor: RetentionAnchor | null;
  /**
   * Set when the trim stopped at a link that does not verify (an edited, deleted or unreadable
   * event at the old end of the chain): nothing from there on is trimmed, so the evidence stays for
   * `audit verify` to report.
   */
  stopped?: string;
}

/** The retention anchor stored beside a chain (`keys.auditAnchor`), or null when there is none or it is malformed. */
export function readRetentionAnchor(fields: Fields | null): RetentionAnchor | null {
  if (!fields) return null;
  const seq = /^\d+$/.test(fields.seq ?? '') ? Number(fields.seq) : Number.NaN;
  if (!Number.isSafeInteger(seq) || !fields.hash || !fields.id) return null;
  return { seq, hash: fields.hash, id: fields.id, ...(fields.at ? { at: fields.at } : {}) };
}

/**
 * Trims the events of one tenant's audit chain whose `at` is before `cutoffMs` (epoch ms), oldest
 * first and in chain order: it stops at the first event at or after the cutoff, so a late event
 * never lets a younger one behind it go early. The newest event is never trimmed, so the next
 * append still links to it.
 *
 * The chain's head before the trim is kept as the retention anchor (`keys.auditAnchor`: the last
 * trimmed event's `seq`, hash, stream id and time), written by the same script call that trims
 * (`Store.streamTrimBefore`, guarded by the anchor it started from, so two trimmers never both
 * move it). `verify` then starts from the anchor instead of the genesis hash, and still proves
 * everything that is left.
 *
 * Every link trimmed is verified first, from the old anchor to the first event kept: a trim never
 * seals away an edited or deleted event. At a link that does not verify it stops (`stopped`) and
 * trims nothing from there, so `verify` still reports the break.
 *
 * @see docs/design.md guarantee 9; docs/audit.md "Retention"
 */
export async function trimChain(store: StreamStore & Pick<RecordStore, 'hashGet'>, tenant: string, cutoffMs: number): Promise<TrimReport> {
  const chainKey = keys.auditChain(tenant);
  const anchorKey = keys.auditAnchor(tenant);
  const storedAnchor = await store.hashGet(anchorKey);
  let anchor = readRetentionAnchor(storedAnchor);
  if (storedAnchor && !anchor) return { tenant, trimmed: 0, anchor: null, stopped: 'the retention anchor is malformed' };
  // Most runs find the oldest event still young: one entry tells, instead of a page of them. Nothing
  // is trimmed then, so nothing could hide an edit; `audit verify` checks the links as it always does.
  const [oldest] = await store.streamRange(chainKey, undefined, 1);
  const oldestEvent = oldest ? storedEvent(oldest, tenant) : null;
  if (!oldest || (oldestEvent && Date.parse(oldestEvent.at) >= cutoffMs)) return { tenant, trimmed: 0, anchor };
  let trimmed = 0;
  for (let page = 0; page < MAX_PAGES; page++) {
    const entries = await store.streamRange(chainKey, undefined, PAGE);
    let [expectedSeq, expectedPrev] = anchor ? [anchor.seq + 1, anchor.hash] : [0, genesisHash(tenant)];
    let last: RetentionAnchor | null = null;
    let keep = -1;
    let stopped: string | undefined;
    for (const [i, entry] of entries.entries()) {
      const event = storedEvent(entry, tenant);
      // A reset link (a Redis that lost data under the chain) is checked from, as `verify` does: the
      // events it lost are older than it, so they were due for the retention anyway.
      if (event && isResetLink(event)) [expectedSeq, expectedPrev] = [event.seq, event.prev_hash];
      // The first event kept is checked too: it must link to the last one trimmed.
      if (!event) stopped = `entry ${entry.id} is unreadable`;
      else if (event.seq !== expectedSeq) stopped = `event ${expectedSeq} is missing or out of order at ${entry.id}`;
      else if (event.prev_hash !== expectedPrev) stopped = `event ${entry.id} does not link to the one before it`;
      if (stopped) break;
      const old = Date.parse(event!.at) < cutoffMs;
      // Stop at the first event to keep: a younger event, the newest one, or the end of this page.
      if (!old || i === entries.length - 1) {
        keep = i;
        break;
      }
      expectedPrev = eventHash(event!);
      last = { seq: event!.seq, hash: expectedPrev, id: entry.id, at: event!.at };
      expectedSeq += 1;
    }
    if (stopped) return { tenant, trimmed, anchor, stopped };
    if (!last || keep < 0) break;
    const result = await store.streamTrimBefore(chainKey, entries[keep]!.id, {
      key: anchorKey,
      ifId: anchor?.id ?? null,
      fields: { seq: String(last.seq), hash: last.hash, id: last.id!, at: last.at! },
    });
    // Another instance trimmed meanwhile (the lease lapsed): its run goes on from where it is.
    if (!result.ok) break;
    trimmed += result.trimmed;
    anchor = last;
    // Only a full page whose old events all went may have more behind it.
    if (keep < entries.length - 1 || entries.length < PAGE) break;
  }
  return { tenant, trimmed, anchor };
}
