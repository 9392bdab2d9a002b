import type { Deps } from '../deps.ts';
import { type IndexStore, keys } from '../store/index.ts';
import { loadRequest } from './load-request.ts';
import { MANDATE_FIELDS, type MandateSpend } from './mandate-fields.ts';
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
 * Flags a redemption whose outcome is overdue (docs/audit.md "Outcomes that never arrive"): when
 * the request is still redeemed with outcome `unknown`, marks it `outcome_flagged_at`
 * (`Lifecycle.flagOutcome`, whose consequence audits `outcome_unknown`). The swap guards on the
 * mark being absent, so however many sweeps or instances find the entry, the flag is written once.
 * The outcome stays `unknown` (docs/design.md "Words": `unknown` until it reports): a late report
 * is still accepted and audited after the flag.
 *
 * @returns whether this call flagged it.
 */
export async function flagUnknownOutcome(deps: FlagOutcomeDeps, ref: RequestRef): Promise<boolean> {
  const request = await loadRequest(deps.store, ref.tenant, ref.auth_req_id);
  if (!request?.redemption_id || request.redeemed_at === undefined) return false;
  return (await deps.lifecycle.flagOutcome(ref, request.redemption_id, deps.clock.now())).ok;
}

/** The spend a member of `keys.spendOutcomeDeadlines` names: `<tenant>:<redemption_id>`, the redemption id ending in its mandate's `auth_req_id`. */
export interface SpendRef extends RequestRef {
  redemption_id: string;
}

/** The member of `keys.spendOutcomeDeadlines` for one spend. */
export function spendDeadlineMember(tenant: string, redemptionId: string): string {
  return `${tenant}:${redemptionId}`;
}

/** The spend a member names, or null for anything that is not one. */
export function parseSpendDeadlineMember(member: string): SpendRef | null {
  const match = /^([a-z0-9][a-z0-9-]{0,39}):(rdm_[A-Za-z0-9_-]{1,64}\.([A-Za-z0-9_-]{16,128}))$/.exec(member);
  return match ? { tenant: match[1]!, redemption_id: match[2]!, auth_req_id: match[3]! } : null;
}

/**
 * Indexes a mandate's spend by when its outcome is overdue (the spend's time + `OUTCOME_TIMEOUT`,
 * epoch ms), as {@link trackOutcomeDeadline} does a redemption: each spend is a redemption of its own.
 */
export async function trackSpendOutcomeDeadline(store: IndexStore, tenant: string, redemptionId: string, dueAtMs: number, ttlSeconds: number): Promise<void> {
  await store.sortedAdd(keys.spendOutcomeDeadlines(), spendDeadlineMember(tenant, redemptionId), dueAtMs, ttlSeconds);
}

/** Drops a spend from the outcome index once its outcome has arrived. */
export async function untrackSpendOutcomeDeadline(store: IndexStore, tenant: string, redemptionId: string): Promise<void> {
  await store.sortedRemove(keys.spendOutcomeDeadlines(), spendDeadlineMember(tenant, redemptionId));
}

/**
 * Flags a spend whose outcome is overdue (`Lifecycle.flagSpendOutcome`, whose consequence audits
 * `outcome_unknown`), as {@link flagUnknownOutcome} does a redemption: once, however many sweeps
 * find it, and not at all once its outcome has arrived. The outcome stays `unknown` until reported.
 *
 * @returns whether this call flagged it.
 */
export async function flagUnknownSpendOutcome(deps: FlagOutcomeDeps, ref: SpendRef): Promise<boolean> {
  const fields = await deps.store.hashGet(keys.request(ref.tenant, ref.auth_req_id));
  const transactionId = fields?.[MANDATE_FIELDS.redemption(ref.redemption_id)];
  const stored = transactionId ? fields?.[MANDATE_FIELDS.spend(transactionId)] : undefined;
  if (!transactionId || !stored) return false;
  const spend = JSON.parse(stored) as MandateSpend;
  return (await deps.lifecycle.flagSpendOutcome(ref, { redemption_id: ref.redemption_id, transaction_id: transactionId, spent_at: spend.at }, deps.clock.now())).ok;
}
