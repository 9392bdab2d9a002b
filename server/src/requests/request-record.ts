import type { ApprovalParty, AuthorizationDetails, Outcome, RequestState } from '@countersign/shared';
import type { PartyApproval } from '../policy/index.ts';

// How a request is written to its hash and read back is `request-fields.ts` (`toFields`,
// `fromFields`), with the chunking of long values in `request-chunks.ts`.

/**
 * One approval request (a CIBA backchannel authentication request) as the server holds it.
 * Times are epoch milliseconds; `interval` is seconds. The action (`authorization_details`) and its
 * hash are written once at creation and never change (docs/design.md guarantee 2).
 */
export interface ApprovalRequest {
  auth_req_id: string;
  tenant: string;
  client_id: string;
  /** The client's name when the request was made, shown to the person. */
  client_name: string;
  sub: string;
  scope: string;
  binding_message: string | null;
  authorization_details: AuthorizationDetails;
  details_hash: string;
  state: RequestState;
  created_at: number;
  /** Deadline for a decision (`expires_in` after creation). */
  expires_at: number;
  interval: number;
  /**
   * How the client is told the result (CIBA Core §5): `poll`, or `ping` / `push` to its
   * notification endpoint. Taken from the client's registration when the request was made.
   */
  token_delivery_mode: 'poll' | 'ping' | 'push';
  /** When the ping or push notification about this request was accepted by the client (epoch ms). */
  notified_at?: number;
  decided_at?: number;
  /** The device whose passkey decided. */
  decided_by?: string;
  /** Deadline for redemption once approved (approval token lifetime). */
  approval_expires_at?: number;
  token_jti?: string;
  redemption_id?: string;
  redeemed_at?: number;
  outcome: Outcome | null;
  // Who must say yes (docs/guarantees.md "Reviewers"), decided at request time from the policy and
  // never changed. `tier` and `parties` are not stored when they are the default (tier `standard`,
  // the customer alone); records stored before policy tiers (or built by hand in a test) read as
  // one customer approval, no number matching, the configured token lifetime.
  /** The policy tier's name. */
  tier?: string;
  /**
   * The revision of its tenant's policy the request was rated under (0, not stored: the server's
   * default); what reads the policy after creation reads this revision (`Deps.policies.forRequest`).
   */
  policy_revision?: number;
  /** Every party that must approve: `customer`, `role:<role>`. */
  parties?: ApprovalParty[];
  /** The parties that approved so far, each with its own passkey (state stays `pending` until all have). */
  approvals?: PartyApproval[];
  /** Approval token lifetime from the final approval, seconds (the tier's). */
  token_lifetime?: number;
  /** Number matching: the code the agent shows the person. Never shown on a device, nor to the operator. */
  binding_code?: string;
  /** Number matching: the three codes the device offers, in their random order. */
  code_candidates?: string[];
  /** When the person said "this wasn't me" (epoch ms). */
  fraud_reported_at?: number;
  // Escalation (docs/escalation.md): the tier's chain, copied at creation and never
  // changed; `parties` as read back is whoever holds the request now.
  /** The chain: at `at` (epoch ms) the request is handed to `party`. Absent: the tier has none. */
  escalation?: EscalationStep[];
  /** How many steps of the chain have happened: 0 until the first window passes. */
  escalation_step?: number;
  /** Read back, never written: the parties that held the request before its current holder, oldest first. */
  held_before?: ApprovalParty[];
  /** Why a request expired, when it was not simply its deadline: every window of its chain passed. */
  expiry_reason?: 'escalation_exhausted' | 'mandate_revoked';
  /** A mandate's revocation (docs/mandates.md): when (epoch ms), and by whom (a device id, or `admin`). */
  revoked_at?: number;
  revoked_by?: string;
}

/** One step of a request's escalation chain: when (epoch ms) it is handed on, and to whom (`role:<role>`). */
export interface EscalationStep {
  at: number;
  party: ApprovalParty;
}

/**
 * The state a request is in at `nowMs`: a pending request past `expires_at`, or an approved one
 * past `approval_expires_at`, is expired even before the store has been told.
 */
export function effectiveState(request: ApprovalRequest, nowMs: number): RequestState {
  if (request.state === 'pending' && nowMs >= request.expires_at) return 'expired';
  if (request.state === 'approved' && nowMs >= (request.approval_expires_at ?? 0)) return 'expired';
  return request.state;
}

/** The deadline that matters in the request's current state (epoch ms). */
export function currentDeadline(request: ApprovalRequest): number {
  return request.state === 'approved' || request.state === 'redeemed' ? (request.approval_expires_at ?? request.expires_at) : request.expires_at;
}
