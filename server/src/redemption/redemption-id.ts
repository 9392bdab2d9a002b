import type { IdGenerator } from '../runtime/index.ts';

/** `rdm_<random>.<auth_req_id>`; the random part is 16 bytes, base64url. */
const REDEMPTION_ID = /^rdm_[A-Za-z0-9_-]{16,40}\.([A-Za-z0-9_-]{16,128})$/;
/** The ids of redemptions made before they named their request (resolved through `keys.redemption`). */
const INDEXED_REDEMPTION_ID = /^rdm_[A-Za-z0-9_-]{10,40}$/;

/**
 * A new redemption's id: 16 random bytes and the id of the request it redeems,
 * `rdm_<random>.<auth_req_id>`. Naming the request makes the id resolvable without an index, so
 * the redemption is one compare-and-swap with nothing beside it that could fail apart from it
 * (on a Redis Cluster an index sits in another slot, perhaps on another node). The id is only ever
 * handed to the client that redeemed, which knows the request already; whoever holds it still
 * needs that client's credentials to report an outcome, and the random part must match the stored one.
 */
export function newRedemptionId(ids: IdGenerator, authReqId: string): string {
  return `${ids(16, 'rdm_')}.${authReqId}`;
}

/**
 * Where a redemption id leads: `{auth_req_id}` for an id that names its request, `{indexed: true}`
 * for one of the older ids resolved through the `keys.redemption` index, null for anything else
 * (answered 404 without a store read).
 */
export function parseRedemptionId(redemptionId: string): { auth_req_id: string } | { indexed: true } | null {
  const named = REDEMPTION_ID.exec(redemptionId);
  if (named) return { auth_req_id: named[1]! };
  return INDEXED_REDEMPTION_ID.test(redemptionId) ? { indexed: true } : null;
}
