import { z } from 'zod';
import type { Fields } from '../store/index.ts';

/** Tells a ping or push client how its request ended (CIBA Core §10.2, §10.3, §12). */
export interface ClientNotificationJob {
  kind: 'client_notification';
  tenant: string;
  auth_req_id: string;
  /** 1 for the first try; each retry is a new job with the next number. */
  attempt: number;
}

/** Pushes a new request to one recipient's devices (RFC 8030): the person it is for, or a reviewer. */
export interface RequestPushJob {
  kind: 'request_push';
  tenant: string;
  auth_req_id: string;
  /** The recipient. */
  sub: string;
  /** The escalation step the push is for (1 for the first hand-over); absent for the request's first push. */
  step?: number;
  attempt: number;
}

/** Pushes a `request_expired` notice to the person's devices ("Expire loudly"). */
export interface ExpiryPushJob {
  kind: 'expiry_push';
  tenant: string;
  auth_req_id: string;
  /** The state the request expired from. */
  from: 'pending' | 'approved';
  attempt: number;
}

/** Pushes the person a receipt for one spend of a mandate that asks for receipts (docs/mandates.md). */
export interface MandateReceiptJob {
  kind: 'mandate_receipt';
  tenant: string;
  auth_req_id: string;
  /** The spend's `transaction_id`. */
  transaction_id: string;
  attempt: number;
}

/**
 * One unit of background work, as it stands in the queue: identifiers only. Whatever a job needs
 * beyond them (the request, the client's endpoint, its `client_notification_token`, a push body) is
 * read from the store when it runs, so the queue never holds a token or a secret, and a job that
 * runs late acts on the request as it is then.
 */
export type Job = ClientNotificationJob | RequestPushJob | ExpiryPushJob | MandateReceiptJob;

/** The kinds of job. */
export type JobKind = Job['kind'];

/** A job to enqueue: `attempt` is 1 unless given. */
export type NewJob = { [K in JobKind]: Omit<Extract<Job, { kind: K }>, 'attempt'> & { attempt?: number } }[JobKind];

/**
 * What a handler did with a job. The queue acknowledges the job whatever it answers; for
 * `{ retryInMs }` it first enqueues the next attempt, due that many milliseconds from now.
 * A handler that throws is retried with the queue's own backoff (a broken store, say).
 */
export type JobOutcome = 'done' | 'skipped' | 'failed' | { retryInMs: number };

/** The code that runs each kind of job; it must be safe to run twice for one job (delivery is at least once). */
export type JobHandlers = { [K in JobKind]: (job: Extract<Job, { kind: K }>) => Promise<JobOutcome> };

// Identifiers as the server puts them into keys: no braces (they would move a key's hash slot),
// no white space or control characters, at most 256 characters.
const id = z.string().regex(/^[^{}\s\p{Cc}]{1,256}$/u);
const attempt = z
  .string()
  .regex(/^[1-9]\d{0,3}$/)
  .transform(Number);

// Unknown fields are dropped rather than refused: an entry written by a newer instance during a
// rolling deploy still runs.
const jobSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('client_notification'), tenant: id, auth_req_id: id, attempt }),
  z.object({
    kind: z.literal('request_push'),
    tenant: id,
    auth_req_id: id,
    sub: id,
    step: z
      .string()
      .regex(/^[1-9]$/)
      .transform(Number)
      .optional(),
    attempt,
  }),
  z.object({ kind: z.literal('expiry_push'), tenant: id, auth_req_id: id, from: z.enum(['pending', 'approved']), attempt }),
  z.object({ kind: z.literal('mandate_receipt'), tenant: id, auth_req_id: id, transaction_id: id, attempt }),
]);

/** The stream fields of a job (all strings, in a fixed order). */
export function jobFields(job: Job): Fields {
  const base = { kind: job.kind, tenant: job.tenant, auth_req_id: job.auth_req_id, attempt: String(job.attempt) };
  switch (job.kind) {
    case 'client_notification':
      return base;
    case 'request_push':
      return { ...base, sub: job.sub, ...(job.step ? { step: String(job.step) } : {}) };
    case 'expiry_push':
      return { ...base, from: job.from };
    case 'mandate_receipt':
      return { ...base, transaction_id: job.transaction_id };
  }
}

/** A job read back from its stream fields, or null when they do not make one (the caller drops it). */
export function parseJob(fields: Fields): Job | null {
  const parsed = jobSchema.safeParse(fields);
  return parsed.success ? parsed.data : null;
}
