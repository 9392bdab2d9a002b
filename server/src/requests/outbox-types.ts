import type { Background, Clock, Logger } from '../runtime/index.ts';
import type { Fields, Store } from '../store/index.ts';
import type { Swap, Transition, TransitionOp } from './lifecycle.ts';
import type { RequestRef } from './request-deadlines.ts';
import type { ApprovalRequest } from './request-record.ts';

/** One transition's consequences are delivered with this: what happened, its place, and the request as it stands now. */
export interface TransitionEvent {
  transition: Transition;
  /** The outbox entry's sequence number in its request (0 for the creation). */
  seq: number;
  /** The request as read with the transition (the live path) or when it is delivered again (the reconciler). */
  request: ApprovalRequest;
  /**
   * The token that makes the `n`-th audit event of this transition land once (`AuditLog.record`'s
   * `once`), however often the entry is delivered: `<seq>.<n>`.
   */
  once(n: number): string;
}

/** One consequence of a transition; it must be safe to run twice (the outbox delivers at least once). */
export type Consequence = (event: TransitionEvent) => Promise<unknown>;

/**
 * What follows each operation, as the app is composed (`consequences.ts`): `record` runs at once,
 * all together, and the swap's caller answers once they landed; `then` runs after them (a client is
 * never told before the audit trail holds the decision), in the background.
 */
export type Consequences = Record<TransitionOp, { record: Consequence[]; then?: Consequence[] }>;

/** What the outbox needs of the server's dependencies. */
export interface OutboxDeps {
  store: Store;
  clock: Clock;
  log: Logger;
  background: Background;
}

/** Options of `createOutbox` (`outbox.ts`). */
export interface OutboxOptions {
  /**
   * Milliseconds a swap may take to reach the store (wall clock): past it, Redis refuses it
   * unapplied (`CompareAndSetOptions.notAfterMs`). The Redis command timeout.
   */
  swapDeadlineMs: number;
  /**
   * Milliseconds after a swap when the reconciler delivers what the swap left behind, should its
   * instance not have; longer than `swapDeadlineMs` plus any clock skew between the instances and
   * Redis, so a swap the reconciler looks at has either applied or never will.
   */
  reconcileAfterMs: number;
  /** Entries the reconciler delivers per call; 100 by default. */
  batchSize?: number;
  /**
   * The clock the swap's deadline is stated in: the store's (`createStoreClock`), which Redis
   * compares it with; `Date.now` by default (the request clock may be a test's).
   */
  wallClock?: () => number;
  /** A random member suffix; 9 random base64url characters by default. */
  nonce: () => string;
}

/** The outbox of the request lifecycle: the {@link Swap} the lifecycle writes with, and its reconciler. */
export interface Outbox {
  swap: Swap;
  /**
   * Marks that `ref` is about to be created with its creation's entry (`ob:0`, {@link creationFields}):
   * written beside the record, so the reconciler looks for it. Answers the mark, for {@link Outbox.created}.
   */
  intend(ref: RequestRef): Promise<string>;
  /** Delivers the creation's consequences once its record (with `ob:0`) is stored; answers once `record` landed. */
  created(request: ApprovalRequest, mark: string): Promise<void>;
  /**
   * Delivers every outbox entry `ref`'s record holds, oldest first, all of each entry's
   * consequences, and clears them. The backstop of the expiry sweep, and the reconciler's step.
   * With `staleOnly`, only the entries whose transition is older than `reconcileAfterMs`: those
   * younger may still be on their way from the instance that made them (the sweep's backstop
   * leaves them to it, and to the reconciler, rather than deliver them a second time).
   * @returns how many entries it delivered.
   */
  drain(ref: RequestRef, fields?: Fields | null, options?: { staleOnly?: boolean }): Promise<number>;
  /**
   * The reconciler: delivers the entries of the swaps whose mark is due (their instance died, timed
   * out or failed over before delivering), from any instance; run under the sweep's lease.
   * A mark whose entries could not all be delivered is put back, due `reconcileAfterMs` later.
   * @returns how many marks it handled.
   * @throws when the due marks cannot be read; a mark whose delivery failed stays, for later.
   */
  reconcile(): Promise<number>;
}
