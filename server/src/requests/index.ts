export { announceExpiry, sendExpiryNotice, type AnnounceExpiryDeps, type SendExpiryNoticeDeps } from './announce-expiry.ts';
export { createExpirySweeper, intervalTicker, type ExpirySweeper, type ExpirySweeperOptions, type Ticker } from './expiry-sweeper.ts';
export { isRequestId, loadRequest, settleExpiry, type SettleExpiryDeps } from './load-request.ts';
export { flagUnknownOutcome, trackOutcomeDeadline, untrackOutcomeDeadline, type FlagOutcomeDeps } from './outcome-deadlines.ts';
export { requestDisplay } from './request-display.ts';
export { holdLease, leaseTicker, type LeaseTickerOptions } from './sweep-lease.ts';
export { deadlineMember, parseDeadlineMember, trackApprovalDeadline, trackDeadline, untrackDeadline, type RequestRef } from './request-deadlines.ts';
export { approvalField, currentDeadline, effectiveState, fromFields, notificationTokenOf, requestOf, toFields, type ApprovalRequest } from './request-record.ts';
