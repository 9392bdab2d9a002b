export { callKey } from './call-key.ts';
export { createMemoryPendingApprovals, type PendingApproval, type PendingApprovals } from './pending-approvals.ts';
export { createRedisPendingApprovals, type PendingRedis, type RedisPendingApprovalsOptions } from './redis-pending-approvals.ts';
