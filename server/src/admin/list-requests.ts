import { CountersignError, tenantName } from '@countersign/shared';
import type { Context } from 'hono';
import { consoleClientId } from '../clients/index.ts';
import type { Deps } from '../deps.ts';
import { loadRequest, parseDeadlineMember, requestDisplay, settleExpiry } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';
import { encodeCursor, matchesQuery, readPageQuery } from './page.ts';

/** The most requests one answer lists (`limit`); 100 by default. */
export const MAX_LIST_LIMIT = 500;
const DEFAULT_LIST_LIMIT = 100;

/**
 * How many members of the deadline index one call reads at most, all tenants together. The index
 * holds every pending request of the deployment; past this many, the answer says `truncated`.
 */
export const MAX_SCANNED = 2000;

/** One pending request as the operator's list shows it: enough to recognise it and look it up. */
export interface PendingRequestSummary {
  auth_req_id: string;
  tenant: string;
  sub: string;
  client_id: string;
  client_name: string;
  binding_message: string | null;
  /** Each action's one-line summary, e.g. `EUR 490.00 to ACME Ltd`. */
  summary: string;
  created_at: string;
  expires_at: string;
  seconds_left: number;
  /** Whether the console's own client made it: a test request, decidable and never redeemable. */
  test: boolean;
}

/**
 * `GET /api/admin/requests?state=pending[&tenant=…][&limit=…][&q=…][&cursor=…]`: the tenant's
 * pending requests, soonest deadline first, answered as `{requests: PendingRequestSummary[],
 * truncated, next_cursor}`. `q` keeps those whose sub, client id, client name or binding message
 * contains it (case-insensitive); `next_cursor` (opaque, null on the last page) is the `cursor` of
 * the next page: the deadline and member of the last request listed, so a request decided
 * meanwhile moves nothing.
 *
 * Where the list comes from, and what it costs: the expiry sweeper's deadline index
 * (`keys.deadlines()`, a sorted set of every pending request of the deployment scored by
 * `expires_at`). One `ZRANGE … BYSCORE LIMIT` reads it, O(log N + M) for the M members read (at
 * most {@link MAX_SCANNED}, all tenants together, since the index is not per tenant), then one
 * `HGETALL` per request of this tenant, up to `limit`. The per-user inbox sets would cost one read
 * per user, and there is no index of users to walk. A request whose deadline passed but that the
 * sweeper has not reached yet is settled here (and audited as expired), not listed.
 *
 * Only `state=pending` exists: decided requests leave the index, and the audit trail is where
 * their history lives.
 *
 * @throws CountersignError `invalid_request` for another `state`, a malformed `tenant` or `limit`.
 */
export function listRequestsHandler(deps: Deps) {
  return async function listRequests(c: Context): Promise<Response> {
    const state = c.req.query('state');
    if (state !== 'pending') throw new CountersignError('invalid_request', 'state=pending is required (the only list there is).');
    const tenant = tenantName.safeParse(c.req.query('tenant') ?? 'default');
    if (!tenant.success) throw new CountersignError('invalid_request', 'tenant is malformed.');
    const limit = readLimit(c.req.query('limit'));
    const { q, after } = readPageQuery(c, { limitParam: null });
    const cursor = after === null ? null : parseCursor(after);

    const [members, testClient] = await Promise.all([deps.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, MAX_SCANNED), consoleClientId(deps.store, tenant.data)]);
    const requests: PendingRequestSummary[] = [];
    let truncated = members.length === MAX_SCANNED;
    let last: string | null = null;
    for (const member of members) {
      const ref = parseDeadlineMember(member);
      if (!ref || ref.tenant !== tenant.data) continue;
      if (cursor && !(await isAfter(deps, ref, member, cursor))) continue;
      if (requests.length === limit) {
        truncated = true;
        break;
      }
      const found = await loadRequest(deps.store, ref.tenant, ref.auth_req_id);
      const request = found ? await settleExpiry(deps, found) : null;
      if (request?.state !== 'pending') continue;
      if (!matchesQuery(q, request.sub, request.client_id, request.client_name, request.binding_message)) continue;
      last = `${request.expires_at}:${member}`;
      const display = requestDisplay(request, deps.clock.now());
      requests.push({
        auth_req_id: request.auth_req_id,
        tenant: request.tenant,
        sub: request.sub,
        client_id: request.client_id,
        client_name: request.client_name,
        binding_message: request.binding_message,
        summary: display.actions.map((action) => action.summary).join('; '),
        created_at: display.created_at,
        expires_at: new Date(request.expires_at).toISOString(),
        seconds_left: secondsUntil(request.expires_at, deps.clock.now()),
        test: testClient !== null && request.client_id === testClient,
      });
    }
    return c.json({ requests, truncated, next_cursor: truncated && last !== null ? encodeCursor(last) : null });
  };
}

/** A page's cursor: `<expires_at>:<deadline member>`, the last request the page before listed. */
function parseCursor(after: string): { expiresAt: number; member: string } {
  const match = /^(\d{1,16}):(.+)$/.exec(after);
  if (!match) throw new CountersignError('invalid_request', 'cursor is not one this server gave (use next_cursor as it is).');
  return { expiresAt: Number(match[1]), member: match[2]! };
}

/** Whether a deadline index member sorts after the cursor: by deadline, then by member, as the index does. */
async function isAfter(deps: Deps, ref: { tenant: string; auth_req_id: string }, member: string, cursor: { expiresAt: number; member: string }): Promise<boolean> {
  if (member === cursor.member) return false;
  const request = await loadRequest(deps.store, ref.tenant, ref.auth_req_id);
  if (!request) return false;
  return request.expires_at > cursor.expiresAt || (request.expires_at === cursor.expiresAt && member > cursor.member);
}

function readLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIST_LIMIT;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new CountersignError('invalid_request', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}.`);
  }
  return limit;
}
