// What verifyChain answers: the report, the broken link, the resets, the heads and anchors it is given.

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

/** The answer of `verifyChain`. */
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

/** The first line of an export of a trimmed chain, `{"retention_anchor": {…}}`, read back by `verifyChain`. */
export interface RetentionAnchorLine {
  retention_anchor: RetentionAnchor;
}
