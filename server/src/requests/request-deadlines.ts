import type { Config } from '../config/index.ts';
import { type IndexStore, keys } from '../store/index.ts';
import type { ApprovalRequest, EscalationStep } from './request-record.ts';

/** Which request a member of the deadline index stands for. */
export interface RequestRef {
  tenant: string;
  auth_req_id: string;
}

/**
 * The member of the deadline index for one request: `<tenant>:<auth_req_id>`. Neither part can
 * hold a `:` (tenants are `[a-z0-9-]`, ids base64url), so the member splits back unambiguously.
 */
export function deadlineMember(ref: RequestRef): string {
  return `${ref.tenant}:${ref.auth_req_id}`;
}

/** The request a deadline member names, or null for anything that is not one. */
export function parseDeadlineMember(member: string): RequestRef | null {
  const match = /^([a-z0-9][a-z0-9-]{0,39}):([A-Za-z0-9_-]{16,128})$/.exec(member);
  return match ? { tenant: match[1]!, auth_req_id: match[2]! } : null;
}

/**
 * Indexes a pending request by its decision deadline (`expires_at`, epoch ms), so the expiry
 * sweeper finds it once the deadline passes without reading any request that is still alive.
 *
 * @param ttlSeconds - how long the index outlives its newest entry when nothing else is added:
 *   the longest request lifetime plus the grace period, so an idle deployment leaves nothing behind.
 */
export async function trackDeadline(store: IndexStore, request: ApprovalRequest, ttlSeconds: number): Promise<void> {
  await store.sortedAdd(keys.deadlines(), deadlineMember(request), request.expires_at, ttlSeconds);
}

/**
 * Moves an approved request in the deadline index to its approval's deadline
 * (`approval_expires_at`, epoch ms), so the expiry sweeper settles an approval nobody redeemed
 * (`approved → expired`) and its places in the user's limits are given back, even when no one reads
 * the request again (its client, which asked, is the one with no reason to). Safe to repeat.
 * The index's TTL, as in {@link trackDeadline}, covers the longest request or approval lifetime
 * plus the grace period.
 */
export async function trackApprovalDeadline(store: IndexStore, request: ApprovalRequest, config: Pick<Config, 'requestExpiryMax' | 'approvalTokenTtl' | 'graceSeconds'>): Promise<void> {
  const ttlSeconds = Math.max(config.requestExpiryMax, request.token_lifetime ?? config.approvalTokenTtl) + config.graceSeconds;
  await store.sortedAdd(keys.deadlines(), deadlineMember(request), request.approval_expires_at ?? request.expires_at, ttlSeconds);
}

/** Drops a request from the deadline index once nothing is left for a deadline to do: decided and not approved, redeemed, or expired. */
export async function untrackDeadline(store: IndexStore, ref: RequestRef): Promise<void> {
  await store.sortedRemove(keys.deadlines(), deadlineMember(ref));
}

/** The next step of a request's escalation chain, if one is still to come before its deadline. */
export function nextEscalation(request: ApprovalRequest): (EscalationStep & { step: number }) | null {
  const step = request.escalation_step ?? 0;
  const next = request.escalation?.[step];
  return next && next.at < request.expires_at ? { step: step + 1, at: next.at, party: next.party } : null;
}

/**
 * Indexes a pending request by the time its next escalation step is due (see {@link nextEscalation}),
 * so the sweeper hands it on once that window passes; drops it when no step is left. Safe to repeat.
 *
 * @param ttlSeconds - how long the index outlives its newest entry (as in {@link trackDeadline}).
 */
export async function trackEscalation(store: IndexStore, request: ApprovalRequest, ttlSeconds: number): Promise<void> {
  const next = request.state === 'pending' ? nextEscalation(request) : null;
  if (next) await store.sortedAdd(keys.escalations(), deadlineMember(request), next.at, ttlSeconds);
  else await untrackEscalation(store, request);
}

/** Drops a request from the escalation index: decided, expired, or at the last step of its chain. */
export async function untrackEscalation(store: IndexStore, ref: RequestRef): Promise<void> {
  await store.sortedRemove(keys.escalations(), deadlineMember(ref));
}
