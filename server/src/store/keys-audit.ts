/**
 * The keys of the audit trail and the tenant's policy: the hash-chained stream, its indexes and
 * anchor, the retention's tenant set, and the older per-request and per-tenant lists.
 * Part of `keys` (see `keys.ts`, which holds the rules every key follows).
 */
export const auditKeys = {
  /**
   * List: the audit events of one request, as full JSON, in the request's own tag. No longer written
   * nor read: each event is stored once, in the tenant's chain, and found through `requestAuditIndex`.
   * Lists written before that simply expire with their TTL (no migration).
   */
  requestAudit: (tenant: string, authReqId: string) => `audit:{${tenant}:${authReqId}}`,
  /**
   * String: the stream ids, in `auditChain(tenant)`, of one request's audit events, in chain order,
   * separated by spaces (a list before; converted on its next append, see `Store.streamIndexRead`);
   * kept the audit retention. In the TENANT's tag, not the request's: the one script that appends a
   * batch of events to the chain appends each new id here in the same atomic step, so both keys must
   * share a Redis Cluster slot.
   */
  requestAuditIndex: (tenant: string, authReqId: string) => `auditidx:{${tenant}}:${authReqId}`,
  /**
   * String: the stream ids, in `auditChain(tenant)`, of the tenant's `policy_changed` events, in chain
   * order, as `requestAuditIndex` holds a request's (appended by the same script call as the event).
   * In the tenant's tag; kept the audit retention. Read by `GET /api/admin/audit?type=policy_changed`.
   */
  policyAuditIndex: (tenant: string) => `auditpol:{${tenant}}`,
  /**
   * Hash: the tenant's own approval policy (`tenant-policy/policy-record.ts`): `revision` (the
   * current one), `r:<n>` each revision's validated policy as JSON (empty: revision n went back to
   * the server's default), `updated_at`, `updated_by`. Written by compare-and-swap on `revision`;
   * no TTL (an operator's setting, kept until replaced). In the tenant's tag.
   */
  tenantPolicy: (tenant: string) => `tpolicy:{${tenant}}`,
  /** List: every audit event of a tenant (before the hash chain; no longer written, see `auditChain`). */
  tenantAudit: (tenant: string) => `audit:{${tenant}}`,
  /**
   * Stream: a tenant's hash-chained audit trail, append-only (see `audit/audit-log.ts`). A key of its
   * own rather than `audit:{tenant}`, which holds a list in stores written before the chain.
   */
  auditChain: (tenant: string) => `auditlog:{${tenant}}`,
  /**
   * Hash `{seq, hash, id, at}`: the last event the audit retention trimmed from `auditChain(tenant)`
   * (its `seq`, its hash, its stream id and time), written with the trim in one script, so `verify`
   * starts from it instead of the genesis hash. No TTL: it lives as long as the chain. In the tenant's tag.
   */
  auditAnchor: (tenant: string) => `auditanchor:{${tenant}}`,
  /**
   * Set: the tenants that have an audit chain (or a client or user, so soon one), which the audit
   * retention walks. One key for the deployment, in a slot of its own; no TTL.
   */
  auditTenants: () => 'audittenants:{audit}',
} as const;
