import { parsePolicy, storedPolicySchema, type Policy } from '../policy/index.ts';
import type { RecordStore } from '../store/index.ts';
import { readRevision, readStoredRevision } from './policy-record.ts';

/** A policy with the tenant's revision it is: 0 is the server's default (`POLICY_FILE`). */
export interface RatedPolicy {
  revision: number;
  policy: Policy;
  /** `tenant` when the tenant set this revision, `default` when it is the server's policy (revision 0, or a revision that went back to it). */
  source: 'tenant' | 'default';
}

/**
 * The approval policy of each tenant, read from the store and cached per instance by tenant and
 * revision. A revision never changes once written, so the cache is never stale; what may change is
 * which revision is current, and that is read from the store ({@link TenantPolicies.revision}) for
 * every new request, so a change made through another instance applies to the next request here.
 */
export interface TenantPolicies {
  /** The server's own policy (`POLICY_FILE` or the shipped default): every tenant's until it sets its own. */
  readonly defaultPolicy: Policy;
  /** The tenant's current revision, read from the store (one HGET); remembered as the one {@link lastKnown} answers. */
  revision(tenant: string): Promise<number>;
  /**
   * The policy of the revision this instance last saw current for the tenant, without a read, when
   * it is still cached; else the default as revision 0. A guess to start work with while
   * {@link revision} is asked; the caller checks it against the answer.
   */
  lastKnown(tenant: string): RatedPolicy;
  /**
   * Revision `revision` of the tenant's policy (cached, else read and validated once).
   * A stored policy is read with `storedPolicySchema`: a type registered after it was written is
   * rated at its strictest tier, not refused.
   * @throws Error when the store holds no such revision, or the stored policy no longer validates
   *   otherwise (a server upgraded to a schema the stored policy does not meet): the request fails
   *   rather than being rated under a policy nobody set.
   */
  at(tenant: string, revision: number): Promise<RatedPolicy>;
  /** The policy a stored request was rated under (`policy_revision`, 0 when absent). Throws as {@link at}. */
  forRequest(request: { tenant: string; policy_revision?: number | undefined }): Promise<Policy>;
  /** Remembers a revision this instance has just written, as current. */
  remember(tenant: string, rated: RatedPolicy): void;
}

/** Options of {@link createTenantPolicies}. */
export interface TenantPoliciesOptions {
  store: Pick<RecordStore, 'hashGetField'>;
  defaultPolicy: Policy;
  /** The most revisions kept in memory (all tenants together), least recently used dropped first. 256 by default. */
  maxCached?: number;
}

/** Creates the per-instance {@link TenantPolicies} over the store. */
export function createTenantPolicies(options: TenantPoliciesOptions): TenantPolicies {
  const { store, defaultPolicy } = options;
  const maxCached = options.maxCached ?? 256;
  const byDefault: RatedPolicy = { revision: 0, policy: defaultPolicy, source: 'default' };
  /** `<tenant> <revision>` → the policy. A tenant name holds no space. */
  const cache = new Map<string, RatedPolicy>();
  /** Per tenant, the revision last seen current. */
  const current = new Map<string, number>();

  const bounded = <V>(map: Map<string, V>, key: string, value: V) => {
    map.delete(key);
    map.set(key, value);
    if (map.size > maxCached) map.delete(map.keys().next().value!);
  };
  const cached = (tenant: string, revision: number): RatedPolicy | undefined => {
    if (revision === 0) return byDefault;
    const found = cache.get(`${tenant} ${revision}`);
    if (found) bounded(cache, `${tenant} ${revision}`, found);
    return found;
  };

  const at = async (tenant: string, revision: number): Promise<RatedPolicy> => {
    const hit = cached(tenant, revision);
    if (hit) return hit;
    const stored = await readStoredRevision(store, tenant, revision);
    const rated: RatedPolicy = stored.document === null ? { revision, policy: defaultPolicy, source: 'default' } : { revision, policy: parsePolicy(JSON.parse(stored.document), `tenant ${tenant} revision ${revision}`, storedPolicySchema), source: 'tenant' };
    bounded(cache, `${tenant} ${revision}`, rated);
    return rated;
  };

  return {
    defaultPolicy,
    async revision(tenant) {
      const revision = await readRevision(store, tenant);
      bounded(current, tenant, revision);
      return revision;
    },
    lastKnown(tenant) {
      const revision = current.get(tenant);
      return (revision === undefined ? undefined : cached(tenant, revision)) ?? byDefault;
    },
    at,
    async forRequest(request) {
      return (await at(request.tenant, request.policy_revision ?? 0)).policy;
    },
    remember(tenant, rated) {
      if (rated.revision > 0) bounded(cache, `${tenant} ${rated.revision}`, rated);
      bounded(current, tenant, rated.revision);
    },
  };
}
