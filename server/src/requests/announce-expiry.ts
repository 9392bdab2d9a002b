import { requestSummary } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { backoffDelay, DEFAULT_BACKOFF_MS, type ExpiryPushJob, type JobOutcome } from '../jobs/index.ts';
import { keys } from '../store/index.ts';
import { fromFields } from './request-fields.ts';
import type { ApprovalRequest } from './request-record.ts';

/** What {@link announceExpiry} needs of the server's dependencies. */
export type AnnounceExpiryDeps = Pick<Deps, 'jobs'>;

/** What {@link sendExpiryNotice} needs of the server's dependencies. */
export type SendExpiryNoticeDeps = Pick<Deps, 'store' | 'push' | 'audit' | 'config' | 'clock'>;

/**
 * The request hash field that records (epoch ms) that the expiry notice went out, so a repeated run
 * of the job (the queue runs jobs at least once) does not send it again.
 */
const EXPIRY_PUSHED_FIELD = 'expiry_pushed_at';

/**
 * Schedules the notice that a request expired unused (docs/audit.md "Expire loudly"): an
 * `expiry_push` job of the queue, ids only, that any instance runs ({@link sendExpiryNotice}).
 *
 * @param from - the state the request expired from: `pending` (never decided) or `approved` (never redeemed).
 * @throws when the store fails; the notice was not scheduled.
 */
export async function announceExpiry(deps: AnnounceExpiryDeps, request: ApprovalRequest, from: 'pending' | 'approved'): Promise<void> {
  await deps.jobs.enqueue({ kind: 'expiry_push', tenant: request.tenant, auth_req_id: request.auth_req_id, from });
}

/**
 * The job `expiry_push`: tells the person that a request expired unused, with a Web Push
 * `request_expired` to every device of the user, with the same `Topic` as the request's own push,
 * so a phone that was offline gets the notice instead of a request it can no longer approve; then
 * audits how many went out. The notice says that nothing was done, and lives as long as the
 * request keeps answering (`graceSeconds`), so the PWA can still open it.
 *
 * When no device took the notice and some failed, it is retried with backoff. Safe to repeat: a
 * notice already sent is not sent again; a request that is gone is skipped.
 *
 * @see RFC 8030 §5.4 (replacing push messages); CIBA Core 1.0 §7.3 (`expires_in`)
 */
export async function sendExpiryNotice(deps: SendExpiryNoticeDeps, job: ExpiryPushJob): Promise<JobOutcome> {
  const key = keys.request(job.tenant, job.auth_req_id);
  const fields = await deps.store.hashGet(key);
  if (!fields?.auth_req_id || fields[EXPIRY_PUSHED_FIELD]) return 'skipped';
  const request = fromFields(fields);
  if (request.state !== 'expired') return 'skipped';
  const what = request.authorization_details.length > 0 ? `${request.client_name}: ${requestSummary(request.authorization_details)}` : request.client_name;
  const summary = job.from === 'pending' ? `Expired, nothing was done. ${what}` : `Approval expired unused, nothing was done. ${what}`;
  const result = await deps.push.notifyUser({
    tenant: request.tenant,
    sub: request.sub,
    auth_req_id: request.auth_req_id,
    summary,
    ttlSeconds: deps.config.graceSeconds,
    kind: 'request_expired',
  });
  if (result.sent === 0 && result.failed > 0) {
    const wait = backoffDelay(job.attempt, DEFAULT_BACKOFF_MS);
    if (wait !== null) return { retryInMs: wait };
  }
  const marked = await deps.store.compareAndSet(key, [{ field: EXPIRY_PUSHED_FIELD, op: 'absent' }], { [EXPIRY_PUSHED_FIELD]: String(deps.clock.now()) });
  if (marked.ok) {
    await deps.audit.record({
      type: 'pushed',
      tenant: request.tenant,
      auth_req_id: request.auth_req_id,
      client_id: request.client_id,
      sub: request.sub,
      channel: 'push',
      detail: { kind: 'request_expired', sent: result.sent, removed: result.removed, failed: result.failed, ...(job.attempt > 1 ? { attempts: job.attempt } : {}) },
    });
  }
  return result.sent > 0 || result.failed === 0 ? 'done' : 'failed';
}
