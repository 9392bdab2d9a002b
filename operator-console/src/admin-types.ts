// The admin API's answers as the console reads them. Shapes the wire shares with the PWA and the
// SDK come from @countersign/shared; the operator-only ones are declared here, mirroring the
// server's own declaration named on each (the console only reads them, so a field it does not use
// is left out).
import type { ActionDisplay, DisplayField, Outcome, RequestDisplay, RequestState, TOKEN_ENDPOINT_AUTH_METHODS } from '@countersign/shared';

/** An `{error, error_description}` refusal body (OAuth style), as every admin route answers one. */
export interface ErrorBody {
  error?: string;
  error_description?: string;
}

/** One pending request of `GET /requests?state=pending` (server/src/admin/list-requests.ts `PendingRequestSummary`). */
export interface PendingRequestSummary {
  auth_req_id: string;
  tenant: string;
  sub: string;
  client_id: string;
  client_name: string;
  binding_message: string | null;
  /** Each action's one-line summary, e.g. `EUR 490.00 to ACME Ltd`. */
  summary: string;
  created_at: string;
  expires_at: string;
  /** Whole seconds before `expires_at`. */
  seconds_left: number;
  /** Made by the console itself (a test request: decidable, never redeemable). */
  test: boolean;
}

/** `GET /requests?state=pending&tenant=…`. */
export interface PendingList {
  requests: PendingRequestSummary[];
  truncated: boolean;
  next_cursor: string | null;
}

/** The stored request of `GET /requests/{auth_req_id}` (server/src/admin/routes.ts), the fields the console shows. */
export interface StoredRequestView {
  auth_req_id: string;
  state: RequestState;
  sub: string;
  tenant: string;
  client_name: string;
  binding_message: string | null;
  /** The code the agent shows, under number matching. */
  binding_code?: string;
  tier: string;
  outcome: Outcome | null;
}

/** `GET /requests/{auth_req_id}`: the stored request and what a person sees of it (`display` is null once it cannot be shown). */
export interface AdminRequestView {
  request: StoredRequestView;
  display: RequestDisplay | null;
}

/** One event of `GET /audit?auth_req_id=…` (server/src/audit/audit-event.ts `AuditEvent`). */
export interface AuditEvent {
  type: string;
  reason?: string;
  device_id?: string;
  channel: string;
  /** ISO 8601. */
  at: string;
}

/** `POST /test-requests` (server/src/console/test-requests.ts). */
export interface TestRequestCreated {
  auth_req_id: string;
  client_id: string;
  expires_in: number;
  interval: number;
  /** The code the agent would show, when the request asks for number matching. */
  binding_code?: string;
}

/**
 * The action types the console sends as a server-built sample: those of server/src/console/sample-actions.ts
 * `SAMPLE_TYPES` but `payment`, which the console's form writes out (the server has a sample of it too).
 */
export const SAMPLE_TYPES = ['deletion', 'message', 'access_change', 'record_change'] as const;
export type SampleType = (typeof SAMPLE_TYPES)[number];

/** One sample of `GET /test-requests/samples` (server/src/console/sample-actions.ts `SamplePreview`). */
export interface SamplePreview {
  type: SampleType | 'payment';
  label: string;
  display: Pick<ActionDisplay, 'title'> & { fields: DisplayField[]; warnings: string[] };
}

/** A client of `GET /clients` and of a disable, enable or new secret (server/src/admin/client-routes.ts `ClientView`). */
export interface ClientView {
  client_id: string;
  tenant: string;
  name: string;
  token_delivery_mode: 'poll' | 'ping' | 'push';
  token_endpoint_auth_method: (typeof TOKEN_ENDPOINT_AUTH_METHODS)[number];
  disabled: boolean;
}

/** A page of a list: its items under `key`, and the `cursor` of the next page (null on the last). */
export type Page<K extends string, T> = { [key in K]: T[] } & { next_cursor: string | null };

/** A user of `GET /users` (server/src/users/users.ts `UserRecord`). */
export interface UserView {
  sub: string;
  display_name: string;
  roles: string[];
}

/** A device of `GET /users/{sub}/devices` (server/src/admin/operator-user-routes.ts `OperatorDeviceView`). */
export interface OperatorDeviceView {
  device_id: string;
  name: string;
  /** ISO 8601. */
  created_at: string;
  /** ISO 8601, or null when its passkey was never used. */
  last_used_at: string | null;
}
