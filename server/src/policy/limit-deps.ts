import type { Clock } from '../runtime/index.ts';
import type { IndexStore, WindowStore } from '../store/index.ts';
import type { Policy } from './policy-schema.ts';

/** The store's capabilities the limits use: windows, and taking a member out of a sorted window. */
export type LimitStore = WindowStore & Pick<IndexStore, 'sortedRemove'>;

/** What the limits need: the store, the clock and the policy. */
export interface LimitDeps {
  store: LimitStore;
  clock: Clock;
  policy: Policy;
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
