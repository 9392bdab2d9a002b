import type { AuthorizationDetails } from '@countersign/shared';
import type { ClientAuthentication, ClientAuthMethod } from './client-authentication.ts';
import type { BcAuthorizeResponse, ClientRequestView, OutcomeReport, RedeemResponse, TokenResponse } from '@countersign/shared';

/** The part of `fetch` the agent client uses; the global `fetch` fits, and so does a test double. */
export type Fetch = (url: string, init: RequestInit) => Promise<Response>;

/** Waits `ms` milliseconds; rejects with `signal.reason` once `signal` aborts. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** Options of {@link createAgentClient} other than the client authentication. */
export interface AgentClientBaseOptions {
  /** The server's `issuer` (its `PUBLIC_URL`), e.g. `https://countersign.example`; endpoints are fixed paths under it. */
  issuer: string;
  /** The registered `client_id`. */
  clientId: string;
  /** Defaults to the global `fetch`. */
  fetch?: Fetch;
  /** Defaults to a `setTimeout` sleep that honours an abort signal. */
  sleep?: Sleep;
  /** Epoch milliseconds; defaults to `Date.now`. Used for `timeoutSeconds` and a client assertion's `iat` and `exp`. */
  now?: () => number;
  /** A fresh, unique `jti` for each `private_key_jwt` assertion; defaults to `crypto.randomUUID`. */
  newId?: () => string;
}

/**
 * Options of {@link createAgentClient}: `auth`, the method the client was registered with, or for
 * short `clientSecret` alone, which means `{method: 'client_secret_basic', clientSecret}`.
 */
export type AgentClientOptions = AgentClientBaseOptions &
  (
    | {
        /** How the client authenticates; see {@link ClientAuthentication}. */
        auth: ClientAuthentication;
        clientSecret?: undefined;
      }
    | {
        /** The client secret, sent with `client_secret_basic`; never logged. Same as `auth: {method: 'client_secret_basic', clientSecret}`. */
        clientSecret: string;
        auth?: undefined;
      }
  );

/** One CIBA backchannel authentication request (CIBA Core 1.0 §7.1, RFC 9396 §2). */
export interface ApprovalRequest {
  /** The approver's `sub`. */
  login_hint: string;
  /** The exact action(s) to approve; sent as a JSON string, stored and hashed by the server. */
  authorization_details: AuthorizationDetails;
  /** At most 64 characters of letters, digits, spaces and common punctuation, shown on the phone. */
  binding_message?: string;
  /** Seconds the request may stay pending (1 up to the server's maximum). */
  requested_expiry?: number;
  /** Space-separated scopes; must hold `openid`. Default `openid`. */
  scope?: string;
  /** Bearer token the server sends with a ping notification (CIBA Core §10.2); ping/push clients only. */
  client_notification_token?: string;
}

/**
 * One poll of the token endpoint (CIBA Core §10.1, §11): a token once approved, else the state
 * the error word stands for: `authorization_pending` → `pending`, `slow_down`,
 * `access_denied` → `denied`, `expired_token` → `expired`.
 */
export type TokenPollResult = { status: 'approved'; token: TokenResponse } | { status: 'pending' } | { status: 'slow_down' } | { status: 'denied' } | { status: 'expired' };

/** Options of {@link AgentClient.redeem}. */
export interface RedeemOptions {
  /**
   * The executor's own reading, right before it acts, of the records the action's `precondition`s
   * name: record → version (`current_versions`, at most 20). A version that differs from the
   * approved one is refused with 409 `stale_record`; an action with a precondition and no reading
   * of its record is refused too.
   */
  current_versions?: Record<string, string>;
}

/** How a request ended, as {@link AgentClient.waitForDecision} reports it. */
export type DecisionResult = Extract<TokenPollResult, { status: 'approved' | 'denied' | 'expired' }>;

/** Options of {@link AgentClient.waitForDecision}. */
export interface WaitForDecisionOptions {
  /** Minimum seconds between polls: the `interval` of the `bc-authorize` answer. */
  interval: number;
  /** Aborts the wait (and the poll in flight); the promise rejects with `signal.reason`. */
  signal?: AbortSignal;
  /** Give up after this many seconds; the promise rejects with a `TimeoutError` DOMException. */
  timeoutSeconds?: number;
}

/**
 * The agent's side of Countersign: ask for one person's yes to one exact action, wait for the
 * decision, redeem the approval token once, report what happened. Made by {@link createAgentClient}.
 * Every call authenticates the client with its configured method ({@link AgentClient.authMethod}):
 * in the `Authorization` header for `client_secret_basic`, else in the form or the JSON body.
 */
export interface AgentClient {
  /** The issuer the client talks to, without a trailing slash. */
  readonly issuer: string;
  /** The client's `client_id`. */
  readonly clientId: string;
  /** How every call authenticates the client. */
  readonly authMethod: ClientAuthMethod;

  /**
   * Asks for an approval: `POST /bc-authorize`, form-encoded, `authorization_details` as a JSON
   * string. Nothing runs yet (guarantee 1): the server stores the action and pushes it to the phone.
   *
   * @returns `{auth_req_id, expires_in, interval}`, seconds; `interval` is 5 when the server omits it.
   * @throws CountersignError `invalid_request`, `invalid_scope`, `unknown_user_id`,
   *   `invalid_binding_message`, `invalid_authorization_details`, `transaction_conflict` (409),
   *   `invalid_client` (401)…, with the server's description and HTTP status.
   * @see CIBA Core 1.0 §7.1 (request), §7.3 (response), RFC 9396 §2
   */
  requestApproval(request: ApprovalRequest): Promise<BcAuthorizeResponse>;

  /**
   * Polls the token endpoint once: `POST /token` with the CIBA grant.
   *
   * @returns the token when approved, else `pending`, `slow_down`, `denied` or `expired`.
   * @throws CountersignError for any other error, e.g. `invalid_grant` (an unknown or someone
   *   else's `auth_req_id`) or `invalid_client`.
   * @see CIBA Core 1.0 §10.1 (token request), §10.1.1 (response), §11 (errors)
   */
  pollToken(auth_req_id: string, options?: { signal?: AbortSignal }): Promise<TokenPollResult>;

  /**
   * Polls until the request is decided. Waits `interval` seconds before every poll (the first
   * included), and after a `slow_down` adds 5 seconds to the interval for every later poll.
   *
   * @returns `approved` (with the token), `denied` or `expired`.
   * @throws the signal's reason when `signal` aborts; a `TimeoutError` DOMException when the next
   *   poll would fall after `timeoutSeconds`; CountersignError as {@link AgentClient.pollToken}.
   * @see CIBA Core 1.0 §7.3 (`interval`), §11 (`slow_down`: "the interval MUST be increased by
   *   at least 5 seconds for this and all subsequent requests")
   */
  waitForDecision(auth_req_id: string, options: WaitForDecisionOptions): Promise<DecisionResult>;

  /**
   * Redeems an approval token against the exact action about to run: `POST /redeem` with JSON
   * `{token, authorization_details, current_versions?}`, plus the client authentication members
   * (`client_id`, `client_secret` or `client_assertion_type` + `client_assertion`) for
   * `client_secret_post` and `private_key_jwt`: the approval token alone is not enough, the server
   * also authenticates the client it was issued to. Pass the details as the executor built them
   * from its own arguments, never as read back from the token: the server compares their hash
   * (guarantee 3). Pass `current_versions` when an action carries a `precondition`.
   *
   * @returns the redemption; hand its `idempotency_key` to the system that executes the action.
   * @throws CountersignError `approval_mismatch` (400), `already_redeemed` (409, with
   *   `body.redemption` = `{redemption_id, redeemed_at, outcome}`), `invalid_token` (401),
   *   `invalid_client` (401), `unauthorized_client` (403), `stale_record` (409).
   * @see RFC 6750 §2.1 (bearer tokens), RFC 9068 (the token), RFC 9396 §2
   */
  redeem(access_token: string, authorization_details: AuthorizationDetails, options?: RedeemOptions): Promise<RedeemResponse>;

  /**
   * Reports what really happened after a redemption: `POST /redemptions/{redemption_id}/outcome`
   * with JSON `{status, reference?, reason?}` (guarantee 8), plus the client authentication
   * members as {@link AgentClient.redeem} sends them.
   *
   * @throws CountersignError, e.g. `not_found` or `outcome_conflict` (409), `invalid_client` (401).
   */
  reportOutcome(redemption_id: string, outcome: OutcomeReport): Promise<void>;

  /**
   * Reads this client's view of one of its requests: `GET /requests/{auth_req_id}` with
   * `client_secret_basic`; `POST /requests/{auth_req_id}` with a form of nothing but the client
   * authentication for `client_secret_post` and `private_key_jwt`, whose credentials travel in a body.
   *
   * @returns `{auth_req_id, state, expires_at, outcome, awaiting}`.
   * @throws CountersignError `not_found` (404) for an unknown id or another client's; `invalid_client` (401).
   */
  getRequest(auth_req_id: string): Promise<ClientRequestView>;
}
