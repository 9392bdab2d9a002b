import { CountersignError, isCurrencyCode } from '@countersign/shared';
import { keys, type SortedWindowResult, type WindowResult } from '../store/index.ts';
import { type LimitDeps, velocityMemberOf } from './limit-deps.ts';
import { reachAmounts, reachLimits, velocityRefusalReason } from './velocity-reach.ts';

export { type LimitDeps, type LimitStore, velocityMemberOf } from './limit-deps.ts';
export { takePushSlot } from './push-slot.ts';
export { type LimitHolder, pendingRequestIds, releasePending, releaseUnused } from './release-limits.ts';

/** The request a reservation is for. `expires_at` is epoch ms; `amounts` minor units per currency. */
export interface ReservationInput {
  tenant: string;
  sub: string;
  client_id: string;
  auth_req_id: string;
  expires_at: number;
  amounts: Record<string, number>;
  /** Records the request deletes in all (`requestReach`); 0 or unset for none. */
  records?: number;
  /** People the request messages in all (`requestReach`); 0 or unset for none. */
  recipients?: number;
}

/** Places a new request holds in the limit windows, until {@link Reservation.release} gives them back. */
export interface Reservation {
  /** Takes the request back out of every window it entered (it was not created after all). */
  release(): Promise<void>;
}

/**
 * Takes a new request's places in the policy's windows, each in one atomic step, before anything
 * about the request is stored or pushed: the user's pending requests (`Store.sortedWindowAdd`,
 * counted until each one's deadline; also the user's inbox), this client's share of them
 * (`max_pending_per_client_user`, likewise), and the per-user and the per-client velocity windows
 * (`Store.windowAdd`: count, total per currency, and records deleted and recipients messaged
 * where the window limits them: `velocity-reach.ts`). The four are asked at once (one round trip,
 * not four: they do not depend on each other). When any is full, the places the others took are
 * given back and the request is refused, so a refusal leaves the windows as they were. The refusal
 * does not depend on which answer came first: `too_many_pending` wins over `velocity_exceeded`, the
 * user's pending limit over the client's share of it, and the per-user velocity window over the
 * per-client one.
 *
 * The client's share is its own key in the user's hash tag, asked beside the user's pending
 * requests rather than in one script with them: every Store operation touches one key, and the
 * take-and-give-back below already makes the pair behave as one limit. Between a place being taken
 * and given back, a concurrent request may see a window fuller than it will be: it errs towards
 * refusing, never towards letting more through than the limit.
 *
 * The places are given back as the request ends: `releasePending` (release-limits.ts) when it leaves `pending`,
 * `releaseUnused` when it ends without being redeemed (denied, reported, expired). The
 * per-client velocity window is never given back: it is the client's own budget of asking.
 *
 * @throws CountersignError `too_many_pending` (429: the user's limit, or this client's share of
 *   it), `velocity_exceeded` (429); the store's error when a window could not be asked (the places
 *   the others took are given back first).
 * @throws RangeError when an amount is under anything but an ISO 4217 code (the edge validates
 *   currencies, so this is a bug upstream), before any window is asked.
 * @see docs/guarantees.md "Velocity limits", "Push fatigue"; docs/security.md "One client cannot
 * lock a person out of every other client"
 */
export async function reserveRequest(deps: LimitDeps, input: ReservationInput): Promise<Reservation> {
  const { store, policy } = deps;
  // The velocity windows total money per ISO 4217 currency; the store keeps any name its layout can
  // spell, so the rule about which names are currencies is checked here.
  for (const currency of Object.keys(input.amounts)) {
    if (!isCurrencyCode(currency)) throw new RangeError(`amounts: ${currency} is not an ISO 4217 currency code`);
  }
  const nowMs = deps.clock.now();
  const { velocity, max_pending_per_user, max_pending_per_client_user } = policy.limits;
  const member = input.auth_req_id;
  const velocityMember = velocityMemberOf(member);
  /** A pending-requests window, scored by the deadline with no window: a request counts while it can still be decided. */
  const pendingStep = (key: string, entryMember: string, maxCount: number, refusal: () => CountersignError) => ({
    add: () => store.sortedWindowAdd(key, { nowMs, member: entryMember, windowMs: 0, score: input.expires_at, maxCount }),
    remove: () => store.sortedRemove(key, entryMember),
    refusal,
  });
  /** A velocity window (count, total per currency, records and recipients), asked and given back. */
  const velocityStep = (key: string, limit: typeof velocity.per_user, whose: string) => {
    const amounts = { ...input.amounts, ...reachAmounts(input) };
    const maxAmounts = { ...limit.max_amount_minor, ...reachLimits(limit) };
    return {
      add: () => store.windowAdd(key, { nowMs, member: velocityMember, windowMs: limit.window_seconds * 1000, amounts, maxCount: limit.max_count, maxAmounts }),
      remove: () => store.windowRemove(key, velocityMember),
      refusal: (result?: WindowResult) => new CountersignError('velocity_exceeded', `Too many ${velocityRefusalReason(result, amounts, maxAmounts)} ${whose} within ${limit.window_seconds} seconds.`),
    };
  };
  // In the order their refusals rank.
  const steps = [
    // The user's pending requests are also their inbox: full ids, listed by name.
    pendingStep(keys.pendingRequests(input.tenant, input.sub), member, max_pending_per_user, () => new CountersignError('too_many_pending', `This user already has ${max_pending_per_user} pending requests; wait for one to be decided.`)),
    pendingStep(
      keys.clientPendingRequests(input.tenant, input.sub, input.client_id),
      velocityMember,
      max_pending_per_client_user,
      () => new CountersignError('too_many_pending', `This client already has ${max_pending_per_client_user} pending requests for this user, its share of the user's ${max_pending_per_user}; wait for one to be decided.`),
    ),
    velocityStep(keys.window(input.tenant, 'velocity-user', input.sub), velocity.per_user, 'for this user'),
    velocityStep(keys.window(input.tenant, 'velocity-client', input.client_id), velocity.per_client, 'from this client'),
  ];
  const results = await Promise.allSettled(steps.map((step) => step.add()));
  const taken = steps.filter((_, i) => {
    const result = results[i]!;
    return result.status === 'fulfilled' && result.value.ok;
  });
  const release = async () => {
    await Promise.all(taken.map((step) => step.remove()));
  };
  const failed = results.findIndex((result) => result.status === 'rejected' || !result.value.ok);
  if (failed >= 0) {
    await release();
    // A store error outranks a refusal: the refusal may not be the whole truth.
    const error = results.find((result): result is PromiseRejectedResult => result.status === 'rejected');
    if (error) throw error.reason;
    const refused = results[failed] as PromiseFulfilledResult<WindowResult | SortedWindowResult>;
    throw steps[failed]!.refusal('totals' in refused.value ? refused.value : undefined);
  }
  return { release };
}
