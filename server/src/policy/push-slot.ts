import { keys } from '../store/index.ts';
import type { LimitDeps } from './limit-deps.ts';

/**
 * Whether one more push to `sub` fits the policy's push rate; when it does, it is counted (one
 * atomic step). A push that does not fit is skipped by the caller; the request still stands.
 */
export async function takePushSlot(deps: LimitDeps, tenant: string, sub: string, authReqId: string): Promise<boolean> {
  const { window_seconds, max_count } = deps.policy.limits.pushes_per_user;
  const result = await deps.store.sortedWindowAdd(keys.pushes(tenant, sub), { nowMs: deps.clock.now(), windowMs: window_seconds * 1000, member: authReqId, maxCount: max_count });
  return result.ok;
}
