export { createExpirySweeper, intervalTicker, type ExpirySweeper, type ExpirySweeperOptions, type Ticker } from './expiry-sweeper.ts';
export { isRequestId, loadRequest, settleExpiry, type SettleExpiryDeps } from './load-request.ts';
export { requestDisplay } from './request-display.ts';
export { deadlineMember, parseDeadlineMember, trackDeadline, untrackDeadline, type RequestRef } from './request-deadlines.ts';
export { currentDeadline, effectiveState, fromFields, notificationTokenOf, toFields, type ApprovalRequest } from './request-record.ts';
