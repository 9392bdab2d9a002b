import type { Clock } from '../runtime/index.ts';
import type { Store } from '../store/index.ts';
import { keys } from '../store/index.ts';

/** The kinds of gate decision the audit trail records (DESIGN.md guarantee 9). */
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
  | 'notified'
  | 'notify_failed'
  | 'device_enrolled'
  | 'push_subscription_removed';

/** Where a decision came from; `notification` is the client's notification endpoint (CIBA ping and push). */
export type AuditChannel = 'agent' | 'device' | 'admin' | 'system' | 'push' | 'notification';

/** One audit event as written: who, what, when and channel. Never a secret or a token. */
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
  /** Small, non-secret facts (counts, redemption id, outcome status). */
  detail?: Record<string, string | number | boolean>;
}

/** The audit trail: append-only lists per request and per tenant. */
export interface AuditLog {
  record(event: Omit<AuditEvent, 'at'>): Promise<void>;
  forRequest(tenant: string, authReqId: string): Promise<AuditEvent[]>;
}

/**
 * An audit log on the store. Events of a request go to the request's list (same hash tag as the
 * request) and to the tenant's list; both are only ever appended to.
 */
export function createAuditLog(store: Store, clock: Clock, retentionSeconds: number): AuditLog {
  return {
    async record(input) {
      const event: AuditEvent = { ...input, at: new Date(clock.now()).toISOString() };
      const line = JSON.stringify(event);
      await Promise.all([
        event.auth_req_id ? store.listAppend(keys.requestAudit(event.tenant, event.auth_req_id), line, retentionSeconds) : undefined,
        store.listAppend(keys.tenantAudit(event.tenant), line),
      ]);
    },
    async forRequest(tenant, authReqId) {
      return (await store.listRange(keys.requestAudit(tenant, authReqId))).map((line) => JSON.parse(line) as AuditEvent);
    },
  };
}
