export { backoffDelay, DEFAULT_BACKOFF_MS } from './backoff.ts';
export { jobFields, parseJob, type ClientNotificationJob, type ExpiryPushJob, type Job, type MandateReceiptJob, type JobHandlers, type JobKind, type JobOutcome, type NewJob, type RequestPushJob } from './job.ts';
export { createJobQueue, JOBS_GROUP, type JobQueue, type JobQueueOptions } from './job-queue.ts';
