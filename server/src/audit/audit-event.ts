/** The kinds of gate decision the audit trail records (docs/design.md guarantee 9). */
export type AuditType =
  | 'proposed'
  | 'pushed'
  | 'viewed'
  | 'approved'
  | 'denied'
  | 'expired'
  | 'token_issued'
  | 'redeemed'
  | 'refused'
  | 'outcome'
  | 'outcome_unknown'
  | 'notified'
  | 'notify_failed'
  | 'device_enrolled'
  | 'push_subscription_removed'
  // Who must say yes (docs/guarantees.md "Reviewers"): one required party approved, others still to
  // come; a push over the user's push rate was not sent; "this wasn't me"; an operator cleared a
  // block or set roles.
  | 'party_approved'
  | 'push_skipped'
  | 'fraud_reported'
  | 'client_unblocked'
  | 'roles_changed'
  // Escalation (docs/escalation.md): a window of the tier's chain passed, and the request went to
  // the next role.
  | 'escalated'
  // Device management from the approver app: a link for another device, a rename, a removal.
  | 'device_enrollment_created'
  | 'device_renamed'
  | 'device_removed'
  // An operator replaced a tenant's approval policy or sent it back to the default (admin API):
  // `detail` {actor, from_revision, to_revision, source, diff} (see `tenant-policy/change-policy.ts`).
  | 'policy_changed'
  // The chain's stream lost events under it (a Redis that came back empty): the appender continued
  // from the head it remembered (docs/audit.md "Resets").
  | 'chain_reset'
  // Standing mandates (docs/mandates.md): one payment spent within a mandate's bounds
  // (`detail` {redemption_id, transaction_id, amount_minor, currency, payee_id}), a mandate stopped.
  | 'spent'
  | 'mandate_revoked'
  // Operator tools (docs/operator-tools.md; admin API, channel `admin`): a client disabled, enabled again, deleted
  // or given a new secret; a user's data exported. An operator's device removal is `device_removed`
  // with `detail.by` = `operator`.
  | 'client_disabled'
  | 'client_enabled'
  | 'client_deleted'
  | 'client_secret_rotated'
  | 'user_exported';

/** One value of an event's `detail`: a scalar, or a list of JSON values (a policy change's diff). */
export type AuditDetailValue = string | number | boolean | readonly AuditDetailItem[];
/** A JSON value inside a `detail` list. */
export type AuditDetailItem = string | number | boolean | null | readonly AuditDetailItem[] | { readonly [member: string]: AuditDetailItem | undefined };

/** Where a decision came from; `notification` is the client's notification endpoint (CIBA ping and push). */
export type AuditChannel = 'agent' | 'device' | 'admin' | 'system' | 'push' | 'notification';

/** One audit event as the code records it: who, what, when and channel. Never a secret or a token. */
export interface AuditEvent {
  type: AuditType;
  /** Stable snake_case reason code, for refusals. */
  reason?: string;
  tenant: string;
  auth_req_id?: string;
  client_id?: string;
  sub?: string;
  device_id?: string;
  credential_id?: string;
  channel: AuditChannel;
  /** ISO 8601 time from the injected clock. */
  at: string;
  /**
   * Small, non-secret facts (counts, redemption id, outcome status); a list only where the event's
   * meaning is one (a `policy_changed` event's `diff`).
   */
  detail?: Record<string, AuditDetailValue>;
}

/**
 * An event as it stands in the tenant's chain: its place (`seq`, from 0) and the hash of the event
 * before it (`prev_hash`), both covered by the next event's hash.
 */
export interface ChainedAuditEvent extends AuditEvent {
  /** Position in the tenant's chain: 0, 1, 2… without gaps. */
  seq: number;
  /** base64url(SHA-256(JCS(previous event))); for `seq` 0, the tenant's genesis hash. */
  prev_hash: string;
}

/**
 * A chained event as read back: plus `id`, where it sits in the store's stream (`<ms>-<n>`). The
 * id is the store's, assigned on append, so it is not covered by the hash; `seq` is.
 */
export interface StoredAuditEvent extends ChainedAuditEvent {
  id: string;
}
