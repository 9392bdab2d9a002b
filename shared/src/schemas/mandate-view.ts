import type { ActionDisplay } from '../actions/index.ts';
import type { FormattedAmount } from '../money/index.ts';
import type { OutcomeReport } from './ciba.ts';

/**
 * A mandate's status as the person sees it: `pending` (not yet approved), `active` (approved and
 * not revoked or ended; a spend may still be refused before `starts_at`), `revoked` (the person or
 * an operator stopped it), `expired` (past `ends_at`, or never approved in time, or denied).
 */
export type MandateStatus = 'pending' | 'active' | 'revoked' | 'expired';

/** What one currency of a mandate has left in the current period (or in all, without a period). */
export interface MandateRemaining {
  /** ISO 4217 code. */
  currency: string;
  /** The limit's `total_minor`, formatted. */
  total: FormattedAmount;
  /** Spent in the current period (or in all), formatted. */
  spent: FormattedAmount;
  /** `total - spent`, never below zero, formatted. */
  left: FormattedAmount;
}

/** One spend of a mandate: a payment redeemed against it. */
export interface MandateSpendView {
  /** The spend's own redemption id (`POST /redemptions/{redemption_id}/outcome` reports on it). */
  redemption_id: string;
  /** The payment's `transaction_id`, the spend's idempotency key. */
  transaction_id: string;
  amount: FormattedAmount;
  payee: { id: string; name: string };
  /** RFC 3339 UTC. */
  spent_at: string;
  /** `unknown` until the executor reports, then `succeeded | failed` with its reference or reason. */
  outcome: { status: 'unknown' | OutcomeReport['status']; reference?: string; reason?: string };
}

/**
 * A mandate as the approver PWA shows it (`GET /api/device/mandates`, `GET /api/device/mandates/{id}`,
 * the answer of `POST /api/device/mandates/{id}/revoke`). Computed by the server from the stored
 * request and its spends, never from model text. See docs/mandates.md.
 */
export interface MandateView {
  auth_req_id: string;
  status: MandateStatus;
  /** The requesting client's name. */
  client_name: string;
  /** The mandate's bounds in plain words (`display.mandate` holds them as data). */
  display: ActionDisplay;
  /** The current UTC calendar period `[start, end)` as RFC 3339 UTC, or null when the mandate has no period. */
  period: { start: string; end: string } | null;
  /** What is left per currency, in the current period (or in all). */
  remaining: MandateRemaining[];
  /** Spends left in the current period (or in all) under `max_spends`; null when the mandate sets no count. */
  spends_left: number | null;
  /** Every spend, newest first. */
  spends: MandateSpendView[];
  /** RFC 3339 UTC, or null while not revoked. */
  revoked_at: string | null;
  /** The mandate's `ends_at`, RFC 3339 UTC. */
  ends_at: string;
}

/** `GET /api/device/mandates` answer: the device's user's mandates, active first, then newest first. */
export interface MandateListResponse {
  mandates: MandateView[];
}

/**
 * `GET /api/device/mandates/{auth_req_id}` answer: the mandate and the WebAuthn authentication
 * options (`PublicKeyCredentialRequestOptionsJSON`) for revoking it, whose challenge is
 * SHA-256(JCS({auth_req_id, details_hash, decision: 'revoke', nonce})). `options.revoke` is absent
 * when the mandate is not active (nothing to revoke).
 */
export interface MandateDetailResponse {
  mandate: MandateView;
  options: { revoke?: Record<string, unknown> };
}

/** `POST /api/device/mandates/{auth_req_id}/revoke` body: the assertion made with `options.revoke`. */
export interface MandateRevokeBody {
  response: Record<string, unknown>;
}

/** `POST /api/device/mandates/{auth_req_id}/revoke` answer: the mandate, now `revoked`. */
export interface MandateRevokeResponse {
  mandate: MandateView;
}
