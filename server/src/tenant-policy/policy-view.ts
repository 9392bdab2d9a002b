import type { Policy } from '../policy/index.ts';
import type { RecordStore } from '../store/index.ts';
import { readStoredRevision } from './policy-record.ts';
import type { TenantPolicies } from './tenant-policies.ts';

/** A tenant's policy as the admin API answers it (`GET /api/admin/tenants/{tenant}/policy`). */
export interface TenantPolicyView {
  tenant: string;
  /** 0 until the tenant sets a policy of its own; every change (a `DELETE` too) adds one. */
  revision: number;
  /** The policy in force, validated (defaults filled in), whichever its source. */
  policy: Policy;
  /** `tenant`: the tenant's own; `default`: the server's (`POLICY_FILE` or the shipped one). */
  source: 'tenant' | 'default';
  /** ISO 8601: when this revision was made; absent for revision 0. */
  updated_at?: string;
  /** Who made it (`X-Countersign-Actor`); absent for revision 0. */
  updated_by?: string;
}

/** What {@link policyView} reads. */
export interface PolicyViewDeps {
  store: Pick<RecordStore, 'hashGetField'>;
  policies: TenantPolicies;
}

/**
 * The tenant's policy at `revision` (its current one, read from the store, when not given).
 * @throws Error as `TenantPolicies.at` (no such revision stored).
 */
export async function policyView(deps: PolicyViewDeps, tenant: string, revision?: number): Promise<TenantPolicyView> {
  const at = revision ?? (await deps.policies.revision(tenant));
  const [rated, stored] = await Promise.all([deps.policies.at(tenant, at), readStoredRevision(deps.store, tenant, at)]);
  return {
    tenant,
    revision: at,
    policy: rated.policy,
    source: rated.source,
    ...(stored.meta ? { updated_at: new Date(stored.meta.updated_at).toISOString(), updated_by: stored.meta.updated_by } : {}),
  };
}
