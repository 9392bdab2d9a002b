import type { RequestRef } from './request-deadlines.ts';

/** The member of `keys.outboxDue` for one swap of `ref`: `<tenant>:<auth_req_id>:<nonce>`, one per swap, so two swaps never share one. */
export function markOf(ref: RequestRef, nonce: string): string {
  return `${ref.tenant}:${ref.auth_req_id}:${nonce}`;
}

/** The request a mark of `keys.outboxDue` is for ({@link markOf}), or null when `member` is not one. */
export function parseMark(member: string): RequestRef | null {
  const match = /^([a-z0-9][a-z0-9-]{0,39}):([A-Za-z0-9_-]{16,128}):[A-Za-z0-9_-]{1,32}$/.exec(member);
  return match ? { tenant: match[1]!, auth_req_id: match[2]! } : null;
}
