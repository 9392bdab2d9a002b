export { isRequestId, loadRequest, settleExpiry } from './load-request.ts';
export { requestDisplay } from './request-display.ts';
export { currentDeadline, effectiveState, fromFields, toFields, type ApprovalRequest } from './request-record.ts';
