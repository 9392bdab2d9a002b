import { requestSummary } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { backoffDelay, DEFAULT_BACKOFF_MS, type JobOutcome, type RequestPushJob } from '../jobs/index.ts';
import { takePushSlot } from '../policy/index.ts';
import { effectiveState, fromFields, type ApprovalRequest } from '../requests/index.ts';
import { secondsUntil } from '../runtime/index.ts';
import { keys } from '../store/index.ts';

/**
 * The request hash field that records (epoch ms) that the new request was pushed to `sub`, or
 * skipped for them: a repeated run of the job (the queue runs jobs at least once) then does nothing.
 */
function pushedField(sub: string, step: number): string {
  // One mark per step of the escalation chain: a holder of the new role who was pushed the request
  // at an earlier step (holding both roles) is still told it is now theirs to decide.
  return step === 0 ? `pushed_at:${sub}` : `pushed_at:${step}:${sub}`;
}

/**
 * Schedules the push of a new request to the devices of each recipient (the person it is for, when
 * they must approve, and every reviewer of a role it needs): one `request_push` job per recipient,
 * holding ids only, run by any instance ({@link pushRequestTo}).
 *
 * @throws when the store fails; the jobs not yet enqueued are not sent.
 * @see docs/reliability.md "Job consumers" (background work done once across instances); RFC 8030 (Web Push)
 */
export async function pushRequest(deps: Pick<Deps, 'jobs'>, request: ApprovalRequest, recipients: string[], step = 0): Promise<void> {
  await Promise.all(recipients.map((sub) => deps.jobs.enqueue({ kind: 'request_push', tenant: request.tenant, auth_req_id: request.auth_req_id, sub, ...(step > 0 ? { step } : {}) })));
}

/**
 * The job `request_push`: pushes a new request to one recipient's devices and audits the push. A
 * recipient over the policy's push rate is not pushed: the skip is audited (`push_skipped`, reason
 * `push_rate_limited`) and the request still stands in their inbox. Push fatigue is how people learn
 * to tap "approve" without reading; a cap on pushes keeps a flood from reaching the phone.
 *
 * A request no longer pending (decided or expired before the job ran) is not pushed. When no device
 * took the message and some failed (a push service down), the push is retried with backoff; once a
 * device took it, it is not sent again, so a person never gets the same request twice for a
 * failure elsewhere. Safe to repeat: a recipient already pushed (or skipped) is skipped. A push of
 * an escalation step (`job.step`) has a mark of its own, and is skipped once the request moved on.
 *
 * @see docs/guarantees.md "Push fatigue"; RFC 8030 (Web Push)
 */
export async function pushRequestTo(deps: Deps, job: RequestPushJob): Promise<JobOutcome> {
  const key = keys.request(job.tenant, job.auth_req_id);
  const fields = await deps.store.hashGet(key);
  if (!fields?.auth_req_id) return 'skipped';
  const request = fromFields(fields);
  const step = job.step ?? 0;
  const mark = pushedField(job.sub, step);
  if (fields[mark] || effectiveState(request, deps.clock.now()) !== 'pending') return 'skipped';
  // Handed on since the job was queued: the recipient can no longer decide it, so is not asked.
  if ((request.escalation_step ?? 0) !== step) return 'skipped';
  const markDone = async () => (await deps.store.compareAndSet(key, [{ field: mark, op: 'absent' }], { [mark]: String(deps.clock.now()) })).ok;

  const base = { tenant: request.tenant, auth_req_id: request.auth_req_id, client_id: request.client_id, sub: job.sub, channel: 'push' as const };
  // The push rate of the policy revision the request was rated under, not whatever is current now.
  const policy = await deps.policies.forRequest(request);
  if (!(await takePushSlot({ ...deps, policy }, request.tenant, job.sub, request.auth_req_id))) {
    if (await markDone()) await deps.audit.record({ ...base, type: 'push_skipped', reason: 'push_rate_limited', detail: { window_seconds: policy.limits.pushes_per_user.window_seconds } });
    return 'skipped';
  }
  const result = await deps.push.notifyUser({
    tenant: request.tenant,
    sub: job.sub,
    auth_req_id: request.auth_req_id,
    summary: `${step > 0 ? 'Escalated to you. ' : ''}${request.client_name}: ${requestSummary(request.authorization_details)}`,
    ttlSeconds: secondsUntil(request.expires_at, deps.clock.now()),
  });
  // From the agent's request to a push service taking the push: the first push only (an escalation's is later by design).
  if (result.sent > 0 && step === 0) deps.metrics.requestToPush.observe(Math.max(0, deps.clock.now() - request.created_at) / 1000);
  if (result.sent === 0 && result.failed > 0) {
    const wait = backoffDelay(job.attempt, DEFAULT_BACKOFF_MS);
    if (wait !== null) return { retryInMs: wait };
  }
  const detail = { sent: result.sent, removed: result.removed, failed: result.failed, ...(job.attempt > 1 ? { attempts: job.attempt } : {}), ...(step > 0 ? { step } : {}) };
  if (await markDone()) await deps.audit.record({ ...base, type: 'pushed', detail });
  return result.sent > 0 || result.failed === 0 ? 'done' : 'failed';
}
