import { CountersignError } from '@countersign/shared';
import type { AuditLog } from '../audit/index.ts';
import type { Policy } from '../policy/index.ts';
import type { Clock } from '../runtime/index.ts';
import type { RecordStore } from '../store/index.ts';
import { jsonDiff, type JsonValue } from './json-diff.ts';
import { swapRevision } from './policy-record.ts';
import { policyView, type TenantPolicyView } from './policy-view.ts';
import type { TenantPolicies } from './tenant-policies.ts';

/** What {@link changePolicy} uses: a subset of the server's `Deps`. */
export interface ChangePolicyDeps {
  store: Pick<RecordStore, 'hashGetField' | 'hashSet' | 'compareAndSet'>;
  policies: TenantPolicies;
  audit: Pick<AuditLog, 'record'>;
  clock: Clock;
}

/** One change of a tenant's policy. */
export interface PolicyChange {
  tenant: string;
  /** The new policy (validated), or null to go back to the server's default. */
  policy: Policy | null;
  /** The revision the change is made against; unset: whatever is current. */
  expectedRevision: number | undefined;
  /** Who makes it, for the audit trail. */
  actor: string;
}

/** Attempts of a change made without an expected revision, each lost to a concurrent change. */
const MAX_ATTEMPTS = 5;

function conflict(current: number, expected: number): CountersignError {
  return new CountersignError('revision_conflict', `The tenant policy is at revision ${current}, not ${expected}: read it again and retry.`, { body: { revision: current } });
}

/**
 * Replaces a tenant's policy (or, with `policy: null`, goes back to the server's default) as a new
 * revision, current revision + 1, written by compare-and-swap on the revision
 * ({@link swapRevision}); then appends the audit event `policy_changed` to the tenant's chain with
 * the actor, `from_revision`, `to_revision`, the `source` now in force and the `diff` (the JSON
 * pointer changes from the policy in force before to the one in force now, see {@link jsonDiff}).
 *
 * A change that changes nothing (the same policy the tenant already has; a `DELETE` of a tenant on
 * the default) writes nothing, audits nothing and answers the current revision. Requests already
 * made keep the revision they were rated under; new ones use the new revision.
 *
 * @throws CountersignError `revision_conflict` (409, body `revision`: the current one) when
 *   `expectedRevision` is not current, or when the swap lost to a concurrent change; without an
 *   expected revision, a lost swap is tried again from a fresh read, a few times.
 */
export async function changePolicy(deps: ChangePolicyDeps, change: PolicyChange): Promise<{ view: TenantPolicyView; changed: boolean }> {
  const { tenant, expectedRevision, actor } = change;
  for (let attempt = 1; ; attempt++) {
    const current = await deps.policies.revision(tenant);
    if (expectedRevision !== undefined && current !== expectedRevision) throw conflict(current, expectedRevision);
    const before = await deps.policies.at(tenant, current);
    const after = change.policy ?? deps.policies.defaultPolicy;
    const source = change.policy === null ? 'default' : 'tenant';
    const diff = jsonDiff(before.policy as unknown as JsonValue, after as unknown as JsonValue);
    if (diff.length === 0 && before.source === source) return { view: await policyView(deps, tenant, current), changed: false };

    const nowMs = deps.clock.now();
    if (await swapRevision(deps.store, tenant, current, change.policy === null ? null : JSON.stringify(change.policy), { updated_at: nowMs, updated_by: actor })) {
      const revision = current + 1;
      deps.policies.remember(tenant, { revision, policy: after, source });
      await deps.audit.record({ type: 'policy_changed', tenant, channel: 'admin', detail: { actor, from_revision: current, to_revision: revision, source, diff } });
      return { view: await policyView(deps, tenant, revision), changed: true };
    }
    if (expectedRevision !== undefined || attempt === MAX_ATTEMPTS) throw conflict(await deps.policies.revision(tenant), current);
  }
}
