import { z } from 'zod';
import { displayText } from './text.ts';
import type { ActionDisplay } from '../actions/index.ts';
import type { FormattedAmount } from '../money/index.ts';
import { recordName, recordVersion } from '../actions/precondition.ts';
import type { AuthorizationDetails } from '../actions/index.ts';

/** The CIBA grant type (CIBA Core §10.1). */
export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';

/** Request states (docs/design.md "States", fixed). */
export const REQUEST_STATES = ['pending', 'approved', 'denied', 'expired', 'redeemed'] as const;
/** One request state. */
export type RequestState = (typeof REQUEST_STATES)[number];

/** An executor's report of what really happened (docs/design.md guarantee 8). */
export const outcomeReport = z.strictObject({
  status: z.enum(['succeeded', 'failed']),
  /** The executor's own reference, e.g. the payment provider's refund id. Shown to the person. */
  reference: displayText(200).optional(),
  /** Why it failed, in the executor's words. Shown to the person, so held to the same rules as the action's text. */
  reason: displayText(500).optional(),
});
/** A validated outcome report. */
export type OutcomeReport = z.infer<typeof outcomeReport>;

/** A redemption's outcome: `unknown` until the executor reports. */
export type Outcome = { status: 'unknown' } | OutcomeReport;

/** `POST /bc-authorize` success body (CIBA Core §7.3). `expires_in` and `interval` in seconds. */
export interface BcAuthorizeResponse {
  auth_req_id: string;
  expires_in: number;
  interval: number;
  /**
   * Number matching (the policy tier asks for it): two digits the agent shows the person, who picks
   * them out of three on the device. Absent for requests without number matching.
   */
  binding_code?: string;
}

/** `POST /token` success body for the CIBA grant (CIBA Core §10.1.1, RFC 9396 §7). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  /** Seconds until the approval token expires. */
  expires_in: number;
  id_token: string;
  authorization_details: AuthorizationDetails;
}

/**
 * Client authentication members a JSON endpoint (`/redeem`, `/redemptions/{id}/outcome`) accepts
 * in its body: the JSON counterparts of the form parameters of client_secret_post and
 * private_key_jwt, for executors that cannot use `Authorization: Basic`.
 * @see RFC 6749 §2.3.1, RFC 7521 §4.2, RFC 7523 §2.2
 */
export const clientAuthMembers = {
  client_id: z.string().min(1).max(256).optional(),
  client_secret: z.string().min(1).max(256).optional(),
  client_assertion_type: z.string().min(1).max(256).optional(),
  client_assertion: z.string().min(1).max(8192).optional(),
};

/** `POST /redeem` body: the approval token and the exact action the executor is about to run. */
export const redeemBody = z.strictObject({
  /**
   * The approval token carries the action in its claims (RFC 9068, RFC 9396 §9), so it is as long as
   * the action allows (a 20,000-character message body, 8 KB of tool arguments): bounded only by the
   * request body's own limit (64 KB), never by a length an approved action can exceed.
   */
  token: z.string().min(1).max(64 * 1024),
  authorization_details: z.unknown(),
  /**
   * The executor's own reading of the records the action's `precondition`s name, record → version,
   * taken where it will execute (docs/audit.md "The world moves"). A missing or different version →
   * 409 `stale_record`.
   */
  current_versions: z
    .preprocess(
      // zod builds a record as a plain object and skips a `__proto__` key without a word: refused
      // here instead, so a version the executor states is never dropped.
      (versions, ctx) => {
        if (versions !== null && typeof versions === 'object' && Object.hasOwn(versions, '__proto__')) {
          ctx.addIssue({ code: 'custom', message: 'may not name the record __proto__', path: ['__proto__'] });
        }
        return versions;
      },
      z.record(recordName, recordVersion).refine((versions) => Object.keys(versions).length <= 20, 'must name at most 20 records'),
    )
    .optional(),
  ...clientAuthMembers,
});

/** `POST /redemptions/{redemption_id}/outcome` body: the outcome report, and client authentication members. @see docs/design.md guarantee 8, RFC 7523 §2.2 */
export const outcomeBody = z.strictObject({ ...outcomeReport.shape, ...clientAuthMembers });

/** A redemption record, as returned on success and with `already_redeemed`. */
export interface Redemption {
  redemption_id: string;
  /** ISO 8601 time of redemption. */
  redeemed_at: string;
  outcome: Outcome;
}

/** `POST /redeem` success body. */
export interface RedeemResponse {
  status: 'redeemed';
  redemption_id: string;
  /** Pass this to the system that executes the action, so a retry never runs it twice. */
  idempotency_key: string;
  authorization_details: AuthorizationDetails;
  redeemed_at: string;
}

/** `GET /requests/{auth_req_id}`: the client's view of one request. */
export interface ClientRequestView {
  auth_req_id: string;
  state: RequestState;
  /** ISO 8601. */
  expires_at: string;
  outcome: OutcomeReport | null;
  /**
   * While the request is `pending`, the parties whose approval it still waits for, in the policy's
   * order: `customer` (the user the request is for) and `role:<role>` (any one holder of that role
   * other than the user, e.g. `role:reviewer:finance`). `["role:reviewer:finance"]` means the user
   * has approved and a finance reviewer has not yet. Empty in every other state. Added beside the
   * fixed fields (docs/design.md: fields may be added to a fixed shape); servers before it send
   * none, which reads as empty.
   */
  awaiting: ApprovalParty[];
  /**
   * Who holds the request on its tier's escalation chain (docs/escalation.md); left out when the
   * tier has none (and by servers before escalation), which reads as null.
   */
  escalation?: EscalationView | null;
  /** Why it expired when that was not just its deadline: `escalation_exhausted` (every role of the chain let its window pass), `mandate_revoked` (a mandate stopped by its person or an operator); left out otherwise. */
  expiry_reason?: 'escalation_exhausted' | 'mandate_revoked' | null;
}

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
