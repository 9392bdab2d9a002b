import { CountersignError, isCurrencyCode } from '@countersign/shared';
import type { Clock } from '../runtime/index.ts';
import { type IndexStore, keys, type SortedWindowResult, type WindowResult, type WindowStore } from '../store/index.ts';
import type { Policy } from './policy-schema.ts';
import { reachAmounts, reachLimits, velocityRefusalReason } from './velocity-reach.ts';

/** The store's capabilities the limits use: windows, and taking a member out of a sorted window. */
export type LimitStore = WindowStore & Pick<IndexStore, 'sortedRemove'>;

/** What the limits need: the store, the clock and the policy. */
export interface LimitDeps {
  store: LimitStore;
  clock: Clock;
  policy: Policy;
}

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
 * How much of an `auth_req_id` (base64url, 160 random bits) a velocity window keeps to tell
 * requests apart: 16 characters, 96 random bits. Two of a window's entries would share them with a
 * chance below 10⁻¹⁷ even at a million entries (n² / 2⁹⁷), and ids are drawn by the server, not
 * chosen by a client. The full id would cost 22 more bytes per entry (it is stored twice), in a
 * window that holds an hour of requests (docs/performance.md: memory per pending request).
 */
const VELOCITY_MEMBER_LENGTH = 16;

/** The member a velocity window knows a request by (see {@link VELOCITY_MEMBER_LENGTH}). */
export function velocityMemberOf(authReqId: string): string {
  return authReqId.slice(0, VELOCITY_MEMBER_LENGTH);
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
 * The places are given back as the request ends: {@link releasePending} when it leaves `pending`,
 * {@link releaseUnused} when it ends without being redeemed (denied, reported, expired). The
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

/** The request whose places are given back: enough to name each of its windows (an `ApprovalRequest` is one). */
export interface LimitHolder {
  tenant: string;
  sub: string;
  client_id: string;
  auth_req_id: string;
}

/**
 * Takes a request out of its user's pending requests (their inbox) and out of its client's share
 * of them: it was decided or it expired, so it no longer counts. Safe to repeat (a member that is
 * gone is gone); an expired one would also leave both on its own, by its deadline.
 *
 * @throws the store's error.
 */
export async function releasePending(store: LimitStore, request: LimitHolder): Promise<void> {
  await Promise.all([
    store.sortedRemove(keys.pendingRequests(request.tenant, request.sub), request.auth_req_id),
    store.sortedRemove(keys.clientPendingRequests(request.tenant, request.sub, request.client_id), velocityMemberOf(request.auth_req_id)),
  ]);
}

/**
 * Gives back everything a request held in its USER's limits, once it has ended without being
 * redeemed: denied (by a party, by a wrong code, or "this wasn't me") or expired (pending, or
 * approved and never redeemed). Its pending places ({@link releasePending}), and its count and
 * amounts in the user's velocity window (`Store.windowRemove` takes this request's own entry: each
 * request adds one, under {@link velocityMemberOf}). Without it, one client asking for a large
 * amount would lock the user out of every other client for the whole window, even after the user
 * said no. A redeemed request keeps counting: money moved.
 *
 * The per-client velocity window keeps the request: it is that client's budget, and a client whose
 * requests are denied must not get its budget back by being denied.
 *
 * Call it only from the caller whose compare-and-swap moved the request to `denied` or `expired`,
 * so that of several racing (two sweepers, a poll, the device) exactly one gives back. An entry
 * that already left the window (older than `window_seconds`) is simply not found.
 *
 * @throws the store's error; what was given back before it stays given back.
 * @see docs/guarantees.md "One client cannot lock a person out"; docs/design.md "States"
 */
export async function releaseUnused(store: LimitStore, request: LimitHolder): Promise<void> {
  await Promise.all([releasePending(store, request), store.windowRemove(keys.window(request.tenant, 'velocity-user', request.sub), velocityMemberOf(request.auth_req_id))]);
}

/** The `auth_req_id`s pending for a user at `nowMs` (their inbox), soonest deadline first. */
export function pendingRequestIds(store: WindowStore, tenant: string, sub: string, nowMs: number): Promise<string[]> {
  return store.sortedWindowMembers(keys.pendingRequests(tenant, sub), nowMs, 0);
}

/**
 * Whether one more push to `sub` fits the policy's push rate; when it does, it is counted (one
 * atomic step). A push that does not fit is skipped by the caller; the request still stands.
 */
export async function takePushSlot(deps: LimitDeps, tenant: string, sub: string, authReqId: string): Promise<boolean> {
  const { window_seconds, max_count } = deps.policy.limits.pushes_per_user;
  const result = await deps.store.sortedWindowAdd(keys.pushes(tenant, sub), { nowMs: deps.clock.now(), windowMs: window_seconds * 1000, member: authReqId, maxCount: max_count });
  return result.ok;
}
