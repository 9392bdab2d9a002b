import type { Deps } from '../deps.ts';
import { type IndexStore, keys } from '../store/index.ts';
import { loadRequest } from './load-request.ts';
import { deadlineMember, type RequestRef } from './request-deadlines.ts';

/**
 * Indexes a redemption by when its outcome is overdue (`redeemed_at` + `OUTCOME_TIMEOUT`, epoch
 * ms), so the sweeper finds it then without reading any redemption that is not.
 *
 * @param ttlSeconds - how long the index outlives its newest entry: the redeemed request's retention,
 *   after which there is nothing left to flag.
 */
export async function trackOutcomeDeadline(store: IndexStore, ref: RequestRef, dueAtMs: number, ttlSeconds: number): Promise<void> {
  await store.sortedAdd(keys.outcomeDeadlines(), deadlineMember(ref), dueAtMs, ttlSeconds);
}

/** Drops a redemption from the outcome index once its outcome has arrived. */
export async function untrackOutcomeDeadline(store: IndexStore, ref: RequestRef): Promise<void> {
  await store.sortedRemove(keys.outcomeDeadlines(), deadlineMember(ref));
}

/** What {@link flagUnknownOutcome} needs of the server's dependencies. */
export type FlagOutcomeDeps = Pick<Deps, 'store' | 'clock' | 'lifecycle'>;

/**
 * Flags a redemption whose outcome is overdue (issue 4, "Outcome"): when the request is still
 * redeemed with outcome `unknown`, marks it `outcome_flagged_at` (`Lifecycle.flagOutcome`, whose
 * consequence audits `outcome_unknown`). The swap guards on the mark being absent, so however many
 * sweeps or instances find the entry, the flag is written once. The outcome stays `unknown`
 * (DESIGN.md: until reported): a late report is still accepted and audited after the flag.
 *
 * @returns whether this call flagged it.
 */
export async function flagUnknownOutcome(deps: FlagOutcomeDeps, ref: RequestRef): Promise<boolean> {
  const request = await loadRequest(deps.store, ref.tenant, ref.auth_req_id);
  if (!request?.redemption_id || request.redeemed_at === undefined) return false;
  return (await deps.lifecycle.flagOutcome(ref, request.redemption_id, deps.clock.now())).ok;
}
