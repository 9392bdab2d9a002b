import { z } from 'zod';
import { displayText } from './text.ts';
import type { ActionDisplay } from '../actions/index.ts';
import type { AuthorizationDetails } from '../actions/index.ts';

/** The CIBA grant type (CIBA Core §10.1). */
export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';

/** Request states (DESIGN.md, fixed). */
export const REQUEST_STATES = ['pending', 'approved', 'denied', 'expired', 'redeemed'] as const;
/** One request state. */
export type RequestState = (typeof REQUEST_STATES)[number];

/** An executor's report of what really happened (DESIGN.md guarantee 8). */
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
  token: z.string().min(1).max(8192),
  authorization_details: z.unknown(),
  ...clientAuthMembers,
});

/** `POST /redemptions/{redemption_id}/outcome` body: the outcome report, and client authentication members. @see DESIGN.md guarantee 8, RFC 7523 §2.2 */
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
}

/** What the approver PWA shows for one request, computed by the server. */
export interface RequestDisplay {
  auth_req_id: string;
  state: RequestState;
  /** The requesting client's registered name. */
  client_name: string;
  binding_message: string | null;
  actions: ActionDisplay[];
  /** ISO 8601 creation time. */
  created_at: string;
  /** ISO 8601 time the request (pending) or the approval (approved) stops being valid. */
  expires_at: string;
  /** Whole seconds left before `expires_at`, 0 once past. */
  seconds_left: number;
  /** The executor's report, once redeemed; `null` before. */
  outcome: Outcome | null;
}
