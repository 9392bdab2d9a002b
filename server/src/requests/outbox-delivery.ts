import { keys } from '../store/index.ts';
import { outboxField, type Transition } from './lifecycle.ts';
import type { Consequences, OutboxDeps, TransitionEvent } from './outbox-types.ts';
import type { RequestRef } from './request-deadlines.ts';
import type { ApprovalRequest } from './request-record.ts';

/** How the outbox delivers one entry's consequences, from {@link createDelivery}. */
export interface Delivery {
  /** Runs one entry's consequences: answers when `record` landed (`recorded`) and when all did and the entry is cleared (`done`). */
  deliver(ref: RequestRef, seq: number, transition: Transition, request: ApprovalRequest, member: string | null): { recorded: Promise<unknown>; done: Promise<void> };
  /** The live path: waits for `record`, leaves the rest to the background; a failure is left to the reconciler. */
  deliverLive(ref: RequestRef, seq: number, transition: Transition, request: ApprovalRequest, member: string | null): Promise<void>;
  /**
   * The `record` step of an entry this instance is delivering live right now (until its entry is
   * cleared), settled either way; undefined when it is not. A later swap of the same request waits
   * for it instead of delivering the entry a second time.
   */
  inFlight(ref: RequestRef, seq: number): Promise<void> | undefined;
}

/**
 * The delivery of outbox entries (`outbox.ts`): each entry's `record` consequences, then its `then`
 * ones, then the entry and its mark (`member`, null when there is none) are cleared.
 */
export function createDelivery(deps: () => OutboxDeps, consequences: () => Consequences): Delivery {
  // Keyed `<tenant>:<auth_req_id>:<seq>`; an entry leaves once its delivery is done or failed.
  const live = new Map<string, Promise<void>>();
  const keyOf = (ref: RequestRef, seq: number) => `${ref.tenant}:${ref.auth_req_id}:${seq}`;

  function deliver(ref: RequestRef, seq: number, transition: Transition, request: ApprovalRequest, member: string | null): { recorded: Promise<unknown>; done: Promise<void> } {
    const plan = consequences()[transition.op];
    const event: TransitionEvent = { transition, seq, request, once: (n) => `${seq}.${n}` };
    const recorded = Promise.all(plan.record.map((consequence) => consequence(event)));
    const done = recorded
      .then(() => Promise.all((plan.then ?? []).map((consequence) => consequence(event))))
      .then(async () => {
        const { store } = deps();
        await Promise.all([store.hashDelete(keys.request(ref.tenant, ref.auth_req_id), outboxField(seq)), member ? store.sortedRemove(keys.outboxDue(), member) : undefined]);
      });
    return { recorded, done };
  }

  async function deliverLive(ref: RequestRef, seq: number, transition: Transition, request: ApprovalRequest, member: string | null): Promise<void> {
    const { background, log } = deps();
    const { recorded, done } = deliver(ref, seq, transition, request, member);
    const key = keyOf(ref, seq);
    const settled = recorded.then(
      () => undefined,
      () => undefined,
    );
    live.set(key, settled);
    const forget = () => {
      if (live.get(key) === settled) live.delete(key);
    };
    done.then(forget, forget);
    background.run(`consequences of ${transition.op}`, () => done);
    try {
      await recorded;
    } catch (error) {
      // The transition stands, with its entry; the reconciler delivers it once the store answers again.
      log.warn('the consequences of a transition failed; the reconciler will deliver them', { op: transition.op, auth_req_id: ref.auth_req_id, error: String(error) });
    }
  }

  return { deliver, deliverLive, inFlight: (ref, seq) => live.get(keyOf(ref, seq)) };
}
