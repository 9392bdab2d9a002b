import type { ActionDisplay } from '../actions/index.ts';
import type { FormattedAmount } from '../money/index.ts';
import type { Outcome, RequestState } from './request-state.ts';

// What the approver PWA is shown of a request, and the passkey prompts it decides with.

/** Where a request stands on its tier's escalation chain: who holds it now, and until when. */
export interface EscalationView {
  /** Hand-overs so far: 0 while the tier's own approver holds it. */
  step: number;
  /** Hand-overs in the chain. */
  steps: number;
  /** Who holds it now: the parties whose approval it needs (`customer`, `role:<role>`). */
  holder: ApprovalParty[];
  /** ISO 8601 time it is handed to `next`, or null at the last step (the holder has until `expires_at`). */
  next_at: string | null;
  /** Who it goes to when `next_at` passes, or null. */
  next: ApprovalParty | null;
}

/** What the approver PWA shows for one request, computed by the server. */
export interface RequestDisplay {
  auth_req_id: string;
  state: RequestState;
  /** The requesting client's registered name. */
  client_name: string;
  binding_message: string | null;
  actions: ActionDisplay[];
  /**
   * What the request moves in all, per currency (code order), summed over its payments: a batch's
   * totals, shown beside each payment. Empty when no action moves money.
   */
  totals: FormattedAmount[];
  /** ISO 8601 creation time. */
  created_at: string;
  /** ISO 8601 time the request (pending) or the approval (approved) stops being valid. */
  expires_at: string;
  /** Whole seconds left before `expires_at`, 0 once past. */
  seconds_left: number;
  /** The executor's report, once redeemed; `null` before. */
  outcome: Outcome | null;
  /** The policy tier decided when the request was made, e.g. `standard`, `elevated`, `high`. */
  tier: string;
  /** Every party that must approve, in the policy's order, and where each stands. */
  approvals: PartyDisplay[];
  /** Who holds the request on its escalation chain, and until when; left out when its tier has none. */
  escalation?: EscalationView;
  /**
   * Number matching, for the person the request is for while they still have to approve: the three
   * codes to pick from (one is the code the agent shows, two are decoys; random order). `null`
   * otherwise (no number matching, a reviewer's view, or nothing left to pick).
   */
  number_matching: { candidates: string[] } | null;
  /** What the device looking at it may do; `null` in the operator's view. */
  viewer: ViewerDisplay | null;
  /**
   * Device views only: true when the request was made by the console's built-in test client (the
   * operator's "send a test request"), which can be decided but never redeemed.
   */
  test?: boolean;
}

/** One party that must approve: the person the request is for, or a reviewer of a role (`role:reviewer:finance`). */
export type ApprovalParty = 'customer' | `role:${string}`;

/** Where one required party stands on a request. */
export interface PartyDisplay {
  party: ApprovalParty;
  /** `Customer`, or the role, e.g. `reviewer:finance`. */
  label: string;
  status: 'approved' | 'waiting';
  /** ISO 8601 time of that party's approval, or null while waiting. */
  approved_at: string | null;
}

/** What the device looking at a request may do with it. */
export interface ViewerDisplay {
  /** The party this device's user would approve as, or null when there is nothing for them to approve. */
  party: ApprovalParty | null;
  /** True when `options` carries passkey prompts for this user (at least `deny`). */
  can_decide: boolean;
  /** True for the person the request is for while it is pending: "This wasn't me" is offered. */
  can_report: boolean;
}

/**
 * WebAuthn request options as the server sends them (`PublicKeyCredentialRequestOptionsJSON`, of
 * which only the challenge is named here); the PWA passes them to `navigator.credentials.get`
 * unchanged, and may give its own type as `P` below.
 */
export interface PasskeyPrompt {
  /** base64url; bound to one request, one decision and (number matching) one code. */
  challenge: string;
}

/**
 * The passkey prompts of one request for one device. `approve` is null when this user has nothing
 * to approve, and under number matching, where the person picks a code and approves with
 * `approve_by_code[code]`. `deny` also serves "this wasn't me" (`POST …/report`).
 */
export interface DecisionPrompts<P = PasskeyPrompt> {
  approve: P | null;
  deny: P;
  /** Number matching only: one approve prompt per candidate code (keys: the candidates). */
  approve_by_code?: Record<string, P>;
}

/** `GET /api/device/requests/{auth_req_id}`: the display, and the prompts when this user can decide. */
export interface RequestView<P = PasskeyPrompt> {
  request: RequestDisplay;
  options: DecisionPrompts<P> | null;
}
