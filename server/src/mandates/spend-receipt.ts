import { formatAmount, type MandatePeriod } from '@countersign/shared';
import type { Deps } from '../deps.ts';
import { backoffDelay, DEFAULT_BACKOFF_MS, type JobOutcome, type MandateReceiptJob } from '../jobs/index.ts';
import { counterOf, MANDATE_FIELDS, mandateOf, periodKey, requestOf, type MandateSpend, type TransitionEvent } from '../requests/index.ts';
import { keys } from '../store/index.ts';

/** How long a receipt may wait at the push service, seconds: a day, it is news of money that moved. */
const RECEIPT_TTL_SECONDS = 86_400;

/** How a receipt names the spend's period in what is left (`EUR 32.80 left this month`). */
const LEFT_IN: Record<MandatePeriod, string> = { day: ' today', week: ' this week', month: ' this month' };

/** The record field that marks a spend's receipt as sent, so a job run twice pushes once. */
const receiptField = (transactionId: string) => `ms:p:${transactionId}`;

/**
 * The consequence of a spend that schedules its receipt: a `mandate_receipt` job, ids only, when
 * the mandate says `receipts: true`; nothing otherwise (receipts are off unless asked for).
 */
export async function pushSpendReceipt(deps: Pick<Deps, 'jobs'>, event: TransitionEvent): Promise<void> {
  const t = event.transition;
  if (t.op !== 'spend' || !mandateOf(event.request.authorization_details)?.receipts) return;
  await deps.jobs.enqueue({ kind: 'mandate_receipt', tenant: event.request.tenant, auth_req_id: event.request.auth_req_id, transaction_id: t.transaction_id });
}

/**
 * The job `mandate_receipt`: pushes the person a Web Push `mandate_spend` receipt for one spend
 * (`EUR 42.00 paid to ACME Utilities under your standing permission for Bill payer; EUR 158.00
 * left this month`), once. What is left is the spend's period's total less its counter as the job
 * reads it: what the person may still be charged when the receipt arrives (a spend made since is
 * already counted, and has its own receipt); a receipt sent after the spend's period ended (retried
 * across its end) says nothing of what is left. Sent once: the receipt's mark (`ms:p:<transaction_id>`) is
 * written by a guarded write before the push, so two runs of one job push once. Retried with
 * backoff when no device took it and some failed.
 * @see RFC 8030 §5.2 (TTL)
 */
export async function sendSpendReceipt(deps: Pick<Deps, 'store' | 'push' | 'clock'>, job: MandateReceiptJob): Promise<JobOutcome> {
  const key = keys.request(job.tenant, job.auth_req_id);
  const fields = await deps.store.hashGet(key);
  const request = requestOf(fields);
  const stored = fields?.[MANDATE_FIELDS.spend(job.transaction_id)];
  if (!request || !stored) return 'skipped';
  if (job.attempt === 1) {
    const marked = await deps.store.compareAndSet(key, [{ field: receiptField(job.transaction_id), op: 'absent' }], { [receiptField(job.transaction_id)]: String(deps.clock.now()) });
    if (!marked.ok) return 'skipped';
  }
  const spend = JSON.parse(stored) as MandateSpend;
  const amount = formatAmount(spend.amount_minor, spend.currency);
  const mandate = mandateOf(request.authorization_details);
  // What was left of a period that has ended is no news: said only while the spend's period runs.
  const current = mandate ? periodKey(mandate, deps.clock.now()) === spend.period : false;
  const limit = current ? mandate?.limits.find((candidate) => candidate.currency === spend.currency) : undefined;
  const spent = counterOf(fields!, MANDATE_FIELDS.total(spend.period, spend.currency));
  const left = limit ? `; ${formatAmount(Math.max(0, limit.total_minor - spent), spend.currency).formatted_code} left${mandate?.period ? LEFT_IN[mandate.period] : ''}` : '';
  const result = await deps.push.notifyUser({
    tenant: request.tenant,
    sub: request.sub,
    auth_req_id: request.auth_req_id,
    summary: `${amount.formatted_code} paid to ${spend.payee.name} under your standing permission for ${request.client_name}${left}`,
    ttlSeconds: RECEIPT_TTL_SECONDS,
    kind: 'mandate_spend',
  });
  if (result.sent === 0 && result.failed > 0) {
    const wait = backoffDelay(job.attempt, DEFAULT_BACKOFF_MS);
    if (wait !== null) return { retryInMs: wait };
    return 'failed';
  }
  return 'done';
}
