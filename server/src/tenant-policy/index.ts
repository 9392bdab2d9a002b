export { changePolicy, type ChangePolicyDeps, type PolicyChange } from './change-policy.ts';
export { jsonDiff, pointerToken, type JsonChange, type JsonValue } from './json-diff.ts';
export { policyProblems, type PolicyProblem } from './policy-problems.ts';
export { readRevision, readStoredRevision, swapRevision, type RevisionMeta, type StoredRevision } from './policy-record.ts';
export { policyView, type PolicyViewDeps, type TenantPolicyView } from './policy-view.ts';
export { deleteBody as deletePolicyBody, putBody as putPolicyBody, registerTenantPolicyRoutes } from './routes.ts';
export { createTenantPolicies, type RatedPolicy, type TenantPolicies, type TenantPoliciesOptions } from './tenant-policies.ts';
