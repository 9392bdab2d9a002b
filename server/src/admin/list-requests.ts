import { CountersignError, tenantName } from '@countersign/shared';
import type { Context } from 'hono';
import type { Deps } from '../deps.ts';
import { loadRequest, parseDeadlineMember, requestDisplay, settleExpiry } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';

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
}

/**
 * `GET /api/admin/requests?state=pending[&tenant=…][&limit=…]`: the tenant's pending requests,
 * soonest deadline first, answered as `{requests: PendingRequestSummary[], truncated}`.
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

    const members = await deps.store.sortedRangeByScore(keys.deadlines(), Number.POSITIVE_INFINITY, MAX_SCANNED);
    const requests: PendingRequestSummary[] = [];
    let truncated = members.length === MAX_SCANNED;
    for (const member of members) {
      const ref = parseDeadlineMember(member);
      if (!ref || ref.tenant !== tenant.data) continue;
      if (requests.length === limit) {
        truncated = true;
        break;
      }
      const found = await loadRequest(deps.store, ref.tenant, ref.auth_req_id);
      const request = found ? await settleExpiry(deps, found) : null;
      if (request?.state !== 'pending') continue;
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
      });
    }
    return c.json({ requests, truncated });
  };
}

function readLimit(value: string | undefined): number {
  if (value === undefined) return DEFAULT_LIST_LIMIT;
  const limit = Number(value);
  if (!/^\d+$/.test(value) || limit < 1 || limit > MAX_LIST_LIMIT) {
    throw new CountersignError('invalid_request', `limit must be a whole number from 1 to ${MAX_LIST_LIMIT}.`);
  }
  return limit;
}
