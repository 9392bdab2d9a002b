import { z } from 'zod';
import { recordName, recordVersion } from '../actions/precondition.ts';
import type { AuthorizationDetails } from '../actions/index.ts';
import type { ApprovalParty, EscalationView } from './request-display.ts';
import { outcomeReport, type Outcome, type OutcomeReport, type RequestState } from './request-state.ts';

export type { ApprovalParty, DecisionPrompts, EscalationView, PartyDisplay, PasskeyPrompt, RequestDisplay, RequestView, ViewerDisplay } from './request-display.ts';
export { REQUEST_STATES, outcomeReport, type Outcome, type OutcomeReport, type RequestState } from './request-state.ts';

/** The CIBA grant type (CIBA Core §10.1). */
export const CIBA_GRANT_TYPE = 'urn:openid:params:grant-type:ciba';

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
  token: z
    .string()
    .min(1)
    .max(64 * 1024),
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
