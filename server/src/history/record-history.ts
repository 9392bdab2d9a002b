import type { ApprovalParty, HistoryEntry, HistoryPart } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { requestDisplay, type ApprovalRequest } from '../requests/index.ts';
import type { Store } from '../store/index.ts';

/** How many past requests one user's history keeps; the oldest go first. */
export const HISTORY_LIMIT = 50;

/**
 * How many entries a history may hold beyond {@link HISTORY_LIMIT} before a write trims it back:
 * trimming reads the whole history, so it runs once per this many new entries, not on every write.
 * Readers show the newest {@link HISTORY_LIMIT}.
 */
const TRIM_SLACK = 16;

/** A history is kept this long after its last write (seconds): it is a convenience, not the audit trail. */
const HISTORY_TTL_SECONDS = 90 * 86_400;

/**
 * Hash: one user's history, `auth_req_id` → {@link StoredHistoryEntry} JSON, at most
 * {@link HISTORY_LIMIT} + `TRIM_SLACK` fields. In the user's hash tag, like their pending requests
 * (`keys.pendingRequests`). A hash rather than a list: an entry is rewritten in place as its request
 * moves on (approved, redeemed, outcome): a write reads its own entry and the count, not the history.
 */
export function historyKey(tenant: string, sub: string): string {
  return `history:{${tenant}:${sub}}`;
}

/**
 * Sorted set: the `auth_req_id`s of one user's history, scored by when each entered it (epoch ms),
 * so a trim finds the oldest without reading and parsing every entry. Same hash tag and TTL as
 * {@link historyKey}. Histories written before it existed are trimmed by reading them whole.
 */
function historyOrderKey(tenant: string, sub: string): string {
  return `historyorder:{${tenant}:${sub}}`;
}

/** An entry as stored: the deadline that turns it `expired` when it passes unrecorded, epoch ms. */
export interface StoredHistoryEntry extends HistoryEntry {
  deadline: number;
}

/** Who just denied a request, and why (the request record keeps only the device). */
export interface HistoryActor {
  sub: string;
  party: ApprovalParty;
  /** `denied`: they said no; `fraud_reported`: "this wasn't me"; `wrong_binding_code`: their wrong number-matching code denied it. */
  cause: NonNullable<HistoryEntry['denial']>;
}

type HistoryDeps = Pick<Deps, 'store' | 'clock'> & { log?: Deps['log'] };

/**
 * Writes where a request stands into the history of everyone who had a part in it: each party
 * that approved, `actor` (who just denied it), and the person it is for once it is settled (while
 * it is pending and they have not approved, it is in their inbox, not their history). Called where a request
 * moves: a party approves, it is approved or denied, redeemed, its outcome reported, it expires.
 * Each write rebuilds the entry from the request record (which holds every approval, the state
 * and the outcome), keeping what the record cannot say again later (who denied, when the entry
 * was first recorded).
 *
 * Best effort: the request has already moved when this runs, so a failure here is logged and never
 * turns a decision or a redemption into an error.
 */
export async function recordHistory(deps: HistoryDeps, request: ApprovalRequest, actor?: HistoryActor): Promise<void> {
  try {
    const now = deps.clock.now();
    const subs = new Set([...(request.state === 'pending' ? [] : [request.sub]), ...(request.approvals ?? []).map((approval) => approval.sub), ...(actor ? [actor.sub] : [])]);
    await Promise.all([...subs].map((sub) => writeEntry(deps.store, request, sub, now, actor)));
  } catch (error) {
    deps.log?.warn('history not recorded', { auth_req_id: request.auth_req_id, error: String(error) });
  }
}

async function writeEntry(store: Store, request: ApprovalRequest, sub: string, now: number, actor: HistoryActor | undefined): Promise<void> {
  const key = historyKey(request.tenant, sub);
  // One round trip, whatever the history holds: this entry as it stands, and how many there are.
  const [stored, count] = await Promise.all([store.hashGetField(key, request.auth_req_id), store.hashLength(key)]);
  const before = parseEntry(stored ?? undefined);
  const display = requestDisplay(request, now);
  const approval = (request.approvals ?? []).find((given) => given.sub === sub);
  const part: HistoryPart | null = approval
    ? { decision: 'approved', party: approval.party, at: new Date(approval.at).toISOString() }
    : actor?.sub === sub && actor.cause !== 'wrong_binding_code'
      ? { decision: actor.cause === 'fraud_reported' ? 'reported' : 'denied', party: actor.party, at: new Date(now).toISOString() }
      : (before?.your_part ?? null);
  const entry: StoredHistoryEntry = {
    auth_req_id: request.auth_req_id,
    state: request.state,
    client_name: request.client_name,
    binding_message: request.binding_message,
    actions: display.actions,
    tier: display.tier,
    approvals: display.approvals,
    outcome: request.outcome,
    denial: request.state === 'denied' ? (actor?.cause ?? before?.denial ?? (request.fraud_reported_at === undefined ? 'denied' : 'fraud_reported')) : null,
    your_part: part,
    created_at: display.created_at,
    recorded_at: before?.recorded_at ?? new Date(now).toISOString(),
    updated_at: new Date(now).toISOString(),
    deadline: Date.parse(display.expires_at),
  };
  // Writes can arrive out of order (a redemption's and its outcome's run in the background): an
  // entry never moves back to an earlier stage of its request's life.
  if (before && progress(before) > progress(entry)) return;
  const orderKey = historyOrderKey(request.tenant, sub);
  await Promise.all([
    store.hashSet(key, { [request.auth_req_id]: JSON.stringify(entry) }, HISTORY_TTL_SECONDS),
    // A new entry takes its place in the order once, when it is first recorded.
    before ? null : store.sortedAdd(orderKey, request.auth_req_id, now, HISTORY_TTL_SECONDS),
  ]);
  if (count + (before ? 0 : 1) > HISTORY_LIMIT + TRIM_SLACK) await trim(store, key, orderKey);
}

/**
 * How far along its life an entry's request is: pending (plus one per approval given), approved,
 * redeemed, and the ends (an outcome reported, denied, expired). Used to ignore a stale write.
 */
function progress(entry: Pick<HistoryEntry, 'state' | 'outcome' | 'approvals'>): number {
  switch (entry.state) {
    case 'pending':
      return entry.approvals.filter((approval) => approval.status === 'approved').length;
    case 'approved':
      return 100;
    case 'redeemed':
      return entry.outcome && entry.outcome.status !== 'unknown' ? 300 : 200;
    case 'denied':
    case 'expired':
      return 300;
  }
}

/**
 * Drops the entries recorded longest ago, down to {@link HISTORY_LIMIT}: the oldest of the order
 * index, without reading the entries; a history the index does not cover whole (written before
 * it) is read and sorted instead.
 */
async function trim(store: Store, key: string, orderKey: string): Promise<void> {
  const [count, ordered] = await Promise.all([store.hashLength(key), store.sortedRangeByScore(orderKey, Number.MAX_SAFE_INTEGER, HISTORY_LIMIT + TRIM_SLACK * 2)]);
  const excess = count - HISTORY_LIMIT;
  if (excess <= 0) return;
  if (ordered.length === count) {
    const oldest = ordered.slice(0, excess);
    await Promise.all(oldest.flatMap((id) => [store.hashDelete(key, id), store.sortedRemove(orderKey, id)]));
    return;
  }
  const entries = readEntries((await store.hashGet(key)) ?? {}, { all: true });
  const dropped = entries.slice(HISTORY_LIMIT).map((entry) => entry.auth_req_id);
  await Promise.all(dropped.flatMap((id) => [store.hashDelete(key, id), store.sortedRemove(orderKey, id)]));
}

/**
 * The entries of a history hash, newest first (by when each entered the history), at most
 * {@link HISTORY_LIMIT} unless `all`. Unreadable fields are skipped.
 */
export function readEntries(fields: Record<string, string>, { all = false } = {}): StoredHistoryEntry[] {
  const entries = Object.values(fields)
    .map(parseEntry)
    .filter((entry): entry is StoredHistoryEntry => entry !== null)
    .sort((a, b) => b.recorded_at.localeCompare(a.recorded_at) || b.updated_at.localeCompare(a.updated_at) || a.auth_req_id.localeCompare(b.auth_req_id));
  return all ? entries : entries.slice(0, HISTORY_LIMIT);
}

function parseEntry(json: string | undefined): StoredHistoryEntry | null {
  if (!json) return null;
  try {
    return JSON.parse(json) as StoredHistoryEntry;
  } catch {
    return null;
  }
}
