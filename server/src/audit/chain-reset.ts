import type { AuditEvent, ChainedAuditEvent } from './audit-event.ts';

/** A chain head as an appender remembers it: the newest event it appended or read. */
export interface KnownHead {
  id: string | null;
  seq: number;
  hash: string;
}

/** What a chain's stream holds at its end when an append is refused: its newest event, or nothing. */
export interface FoundTail {
  id: string;
  seq: number;
}

/**
 * Whether the stream lost events this appender had seen: it is empty, or its newest event is older
 * (a lower `seq`) than the head remembered. Neither happens to a healthy chain: appends only add,
 * and the retention never removes the newest event (`retention.ts`). It is what a Redis restarted
 * without persistence, or restored from an older snapshot, looks like.
 */
export function isChainReset(known: KnownHead, found: FoundTail | null): boolean {
  // The genesis guess of a fresh process (seq -1) has seen nothing, so it has nothing to lose.
  if (known.seq < 0) return false;
  return found === null || found.seq < known.seq;
}

/**
 * The `chain_reset` event an appender puts at the front of its batch when it finds the chain reset
 * ({@link isChainReset}): it continues from the head it remembered (its `seq` + 1, that head's hash
 * as `prev_hash`) instead of starting a new chain at the genesis hash, and states the head it lost
 * and what it found instead, so `verify` reports the reset rather than "holds".
 *
 * @param at - the time of the batch's first event (ISO 8601).
 */
export function chainResetEvent(tenant: string, known: KnownHead, found: FoundTail | null, at: string): AuditEvent {
  return {
    type: 'chain_reset',
    tenant,
    channel: 'system',
    at,
    detail: {
      lost_seq: known.seq,
      lost_hash: known.hash,
      lost_id: known.id ?? '',
      // -1 and '': the stream was empty.
      found_seq: found?.seq ?? -1,
      found_id: found?.id ?? '',
    },
  };
}

/**
 * Whether an event is a well-formed reset link: a `chain_reset` whose `seq` and `prev_hash` continue
 * the head it says was lost. Such a link starts a stretch that the verifier and the retention check
 * from the link on, as they would from a retention anchor; the events between the head found and
 * the head lost cannot be checked, and `verify` reports the chain as reset, never as holding.
 */
export function isResetLink(event: ChainedAuditEvent): boolean {
  if (event.type !== 'chain_reset' || !event.detail) return false;
  return event.detail.lost_seq === event.seq - 1 && event.detail.lost_hash === event.prev_hash;
}
